pub mod bulk;

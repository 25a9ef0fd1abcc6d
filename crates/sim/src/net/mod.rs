pub mod link;
pub mod packet;

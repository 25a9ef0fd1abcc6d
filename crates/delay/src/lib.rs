//! bufsize-delay: the testbed delay element (work in progress).

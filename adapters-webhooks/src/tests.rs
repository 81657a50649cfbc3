//! The transport's posts against receivers on 127.0.0.1 (private targets
//! allowed, unless a test says otherwise).

mod https;
mod posts;
mod receiver;

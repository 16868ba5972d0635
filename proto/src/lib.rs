//! The gRPC contract of qiwang: generated types, clients and servers for every service.
//!
//! The `.proto` files under `proto/qiwang/` are the source of truth; this crate only compiles them.
//! Each service has one versioned package (`qiwang.registration.v1`, …).

/// `qiwang.audit.v1`: the audit log pages every hash-chained service serves.
pub mod audit {
    pub mod v1 {
        tonic::include_proto!("qiwang.audit.v1");
    }
}

/// `qiwang.registration.v1`
pub mod registration {
    pub mod v1 {
        tonic::include_proto!("qiwang.registration.v1");
    }
}

/// `qiwang.qualification.v1`
pub mod qualification {
    pub mod v1 {
        tonic::include_proto!("qiwang.qualification.v1");
    }
}

/// `qiwang.pairing.v1`
pub mod pairing {
    pub mod v1 {
        tonic::include_proto!("qiwang.pairing.v1");
    }
}

/// `qiwang.teamranking.v1`
pub mod teamranking {
    pub mod v1 {
        tonic::include_proto!("qiwang.teamranking.v1");
    }
}

/// `qiwang.awards.v1`
pub mod awards {
    pub mod v1 {
        tonic::include_proto!("qiwang.awards.v1");
    }
}

/// The encoded `FileDescriptorSet` of every qiwang proto, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("qiwang_descriptor");

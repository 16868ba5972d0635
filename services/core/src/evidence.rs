//! Uploaded evidence (证明材料, R-WC-1): what an upload must be before it is stored.
//!
//! Reading: the certificate photo of a wildcard application is an image a phone or scanner makes,
//! so JPEG and PNG are accepted and nothing else. The type is judged from the bytes (the magic
//! numbers and, for PNG, the header chunk), never from a file name; the declared type must agree,
//! so a browser's label cannot smuggle another kind of file past an organizer who opens it. The size
//! limit is 2 MiB: a legible certificate photo is far smaller, and the limit keeps the database and
//! the federation exports lean.

use std::fmt;

/// The most an upload may weigh, in bytes (2 MiB).
pub const MAX_EVIDENCE_BYTES: usize = 2 * 1024 * 1024;

/// An accepted image kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Jpeg,
    Png,
}

impl ImageKind {
    /// The media type stored and served back.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Png => "image/png",
        }
    }

    fn from_media_type(declared: &str) -> Option<ImageKind> {
        match declared.trim().to_ascii_lowercase().as_str() {
            "image/jpeg" | "image/jpg" | "image/pjpeg" => Some(ImageKind::Jpeg),
            "image/png" => Some(ImageKind::Png),
            _ => None,
        }
    }
}

/// Why an upload is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvidenceRefusal {
    Empty,
    TooLarge {
        size: usize,
    },
    /// The declared media type is not one we accept.
    TypeNotAccepted(String),
    /// The bytes are not a JPEG or PNG image.
    NotAnImage,
    /// The bytes are one kind of image, the declared type another.
    TypeMismatch {
        declared: ImageKind,
        found: ImageKind,
    },
}

impl fmt::Display for EvidenceRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvidenceRefusal::Empty => f.write_str("the upload is empty"),
            EvidenceRefusal::TooLarge { size } => write!(
                f,
                "the upload is {size} bytes; at most {MAX_EVIDENCE_BYTES} bytes (2 MiB) are accepted"
            ),
            EvidenceRefusal::TypeNotAccepted(t) => {
                write!(
                    f,
                    "type {t:?} is not accepted: upload image/jpeg or image/png"
                )
            }
            EvidenceRefusal::NotAnImage => f.write_str("the content is not a JPEG or PNG image"),
            EvidenceRefusal::TypeMismatch { declared, found } => write!(
                f,
                "declared {} but the content is {}",
                declared.media_type(),
                found.media_type()
            ),
        }
    }
}

/// The image kind of `bytes`, judged from their first bytes.
pub fn sniff(bytes: &[u8]) -> Option<ImageKind> {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() >= 24 && bytes.starts_with(PNG) && &bytes[12..16] == b"IHDR" {
        return Some(ImageKind::Png);
    }
    // SOI, then a marker (APPn, DQT, SOF…).
    if bytes.len() >= 4 && bytes[..3] == [0xFF, 0xD8, 0xFF] && bytes[3] >= 0xC0 {
        return Some(ImageKind::Jpeg);
    }
    None
}

/// Checks an upload; the kind to store it as.
pub fn check_upload(declared: &str, bytes: &[u8]) -> Result<ImageKind, EvidenceRefusal> {
    if bytes.is_empty() {
        return Err(EvidenceRefusal::Empty);
    }
    if bytes.len() > MAX_EVIDENCE_BYTES {
        return Err(EvidenceRefusal::TooLarge { size: bytes.len() });
    }
    let declared_kind = ImageKind::from_media_type(declared)
        .ok_or_else(|| EvidenceRefusal::TypeNotAccepted(declared.to_owned()))?;
    let found = sniff(bytes).ok_or(EvidenceRefusal::NotAnImage)?;
    if found != declared_kind {
        return Err(EvidenceRefusal::TypeMismatch {
            declared: declared_kind,
            found,
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png() -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
        b.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
        b
    }

    fn jpeg() -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        b.extend_from_slice(b"JFIF\0");
        b.extend_from_slice(&[0xFF, 0xD9]);
        b
    }

    #[test]
    fn r_wc_1_jpeg_and_png_certificate_photos_are_accepted() {
        assert_eq!(check_upload("image/png", &png()), Ok(ImageKind::Png));
        assert_eq!(check_upload("image/jpeg", &jpeg()), Ok(ImageKind::Jpeg));
        assert_eq!(check_upload(" IMAGE/JPG ", &jpeg()), Ok(ImageKind::Jpeg));
    }

    #[test]
    fn r_wc_1_anything_else_is_refused_with_its_reason() {
        assert_eq!(check_upload("image/png", &[]), Err(EvidenceRefusal::Empty));
        let pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
        assert_eq!(
            check_upload("image/png", &pdf),
            Err(EvidenceRefusal::NotAnImage)
        );
        assert_eq!(
            check_upload("application/pdf", &pdf),
            Err(EvidenceRefusal::TypeNotAccepted("application/pdf".into()))
        );
        let html = b"<script>alert(1)</script>".to_vec();
        assert_eq!(
            check_upload("image/jpeg", &html),
            Err(EvidenceRefusal::NotAnImage)
        );
        // An SVG is an image to a browser but a document that can carry script: refused.
        assert!(check_upload("image/svg+xml", b"<svg/>").is_err());
        assert_eq!(
            check_upload("image/jpeg", &png()),
            Err(EvidenceRefusal::TypeMismatch {
                declared: ImageKind::Jpeg,
                found: ImageKind::Png
            })
        );
        // A PNG signature without its header chunk is not a PNG.
        assert_eq!(
            check_upload("image/png", &png()[..16]),
            Err(EvidenceRefusal::NotAnImage)
        );
        let mut big = jpeg();
        big.resize(MAX_EVIDENCE_BYTES + 1, 0);
        assert_eq!(
            check_upload("image/jpeg", &big),
            Err(EvidenceRefusal::TooLarge {
                size: MAX_EVIDENCE_BYTES + 1
            })
        );
        big.truncate(MAX_EVIDENCE_BYTES);
        assert!(check_upload("image/jpeg", &big).is_ok());
    }
}

//! Byte strings in the file formats: `#[serde(with = "crate::bytes")]` on a
//! `Vec<u8>` field.
//!
//! serde treats a plain `Vec<u8>` as a sequence of `u8`, so bincode decodes
//! it one element at a time through serde's visitor; for a megabyte of
//! machine code that is a million calls. Spelt as serde bytes, bincode
//! copies them in one go. The encoding is the same either way (the length,
//! then one byte per element), so files written before read unchanged.

use serde::{Deserializer, Serializer};

pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(bytes)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a byte string")
        }
        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
        // Self-describing formats (JSON) may hand bytes over as a sequence.
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(b) = seq.next_element()? {
                out.push(b);
            }
            Ok(out)
        }
    }
    d.deserialize_byte_buf(Visitor)
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct AsBytes(#[serde(with = "crate::bytes")] Vec<u8>);

    #[test]
    fn encoding_is_that_of_a_plain_vec() {
        let config = bincode::config::standard();
        for len in [0usize, 1, 250, 251, 70_000] {
            let v: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let plain = bincode::serde::encode_to_vec(&v, config).unwrap();
            let bytes = bincode::serde::encode_to_vec(AsBytes(v.clone()), config).unwrap();
            assert_eq!(plain, bytes);
            let (back, n): (AsBytes, usize) = bincode::serde::decode_from_slice(&plain, config).unwrap();
            assert_eq!((back.0, n), (v, plain.len()));
        }
    }

    #[test]
    fn a_length_beyond_the_input_is_an_error() {
        let config = bincode::config::standard().with_limit::<1024>();
        let mut file = bincode::serde::encode_to_vec(vec![1u8; 8], bincode::config::standard()).unwrap();
        file[0] = 200;
        assert!(bincode::serde::decode_from_slice::<AsBytes, _>(&file, config).is_err());
    }
}

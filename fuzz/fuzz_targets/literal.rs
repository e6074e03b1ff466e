//! libFuzzer entry for the `literal` target; the body is `fuzzing::literal`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::literal(data));

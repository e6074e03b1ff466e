//! libFuzzer entry for the `gp_object` target; the body is `fuzzing::gp_object`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::gp_object(data));

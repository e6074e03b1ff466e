//! libFuzzer entry for the `npy` target; the body is `fuzzing::npy`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::npy(data));

//! libFuzzer entry for the `pir` target; the body is `fuzzing::pir`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::pir(data));

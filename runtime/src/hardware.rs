//! IPU hardware discovery, as `gc-inventory` would report it: for each
//! `/dev/ipuN` character device, whether its companions `ipuN_ex`,
//! `ipuN_mailbox` and `ipuN_mem` exist too (each IPU exposes four user-space
//! PCIe devices; passing only some of them into a container is the usual
//! mistake). This runtime cannot drive IPU hardware; it only reports.
//!
//! The scan takes the list of names in the device folder, so it is pure and
//! testable; the binary reads `/dev`.

/// One IPU found in the device folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipu {
    pub id: u32,
    /// The companion devices that are missing (`ipu0_ex`, …).
    pub missing: Vec<String>,
}

/// The IPUs named by `/dev` entries, by id.
pub fn scan<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Ipu> {
    let names: std::collections::BTreeSet<&str> = names.into_iter().collect();
    let mut ids: Vec<u32> = names
        .iter()
        .filter_map(|n| n.strip_prefix("ipu"))
        .filter_map(|rest| rest.split('_').next()?.parse().ok())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .map(|id| {
            let missing = ["", "_ex", "_mailbox", "_mem"]
                .iter()
                .map(|suffix| format!("ipu{id}{suffix}"))
                .filter(|n| !names.contains(n.as_str()))
                .collect();
            Ipu { id, missing }
        })
        .collect()
}

/// The hardware part of `--list-devices`.
pub fn describe(ipus: &[Ipu]) -> String {
    let mut s = String::from("IPU hardware (/dev/ipu*):\n");
    if ipus.is_empty() {
        s += "  none found\n";
    }
    for ipu in ipus {
        if ipu.missing.is_empty() {
            s += &format!("  ipu{0}: /dev/ipu{0}, ipu{0}_ex, ipu{0}_mailbox, ipu{0}_mem present\n", ipu.id);
        } else {
            s += &format!(
                "  ipu{}: incomplete, missing {} (pass all four devices into the container, e.g. with gc-docker)\n",
                ipu.id,
                ipu.missing.iter().map(|m| format!("/dev/{m}")).collect::<Vec<_>>().join(", ")
            );
        }
    }
    s += "  this runtime cannot drive IPU hardware; use --device sim or --device cpu\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_incomplete_ipus() {
        let ipus = scan(["ipu0", "ipu0_ex", "ipu0_mailbox", "ipu0_mem", "ipu4", "ipu4_ex", "null"]);
        assert_eq!(ipus[0], Ipu { id: 0, missing: vec![] });
        assert_eq!(ipus[1].missing, vec!["ipu4_mailbox", "ipu4_mem"]);
        assert!(describe(&[]).contains("none found"));
        assert!(describe(&ipus).contains("missing /dev/ipu4_mailbox"));
    }
}

//! The IPU-Link rule of an image: every transfer between two IPUs of a
//! replica joins IPUs that the target's `ipuLinkConfiguration` and
//! `ipuLinkTopology` connect (`vocab::IpuLinks`). The linker refuses an
//! image that breaks it, naming the exchange, and the validator refuses
//! such an image on load.

use crate::image::{Exchange, Image};

/// `Err` names the first exchange, in image order, with a transfer between
/// IPUs the links do not connect.
pub fn check(image: &Image) -> Result<(), String> {
    let t = &image.target;
    if t.ipus <= 1 {
        return Ok(());
    }
    t.links.check(t.ipus)?;
    let named = image.compute_sets.iter().flat_map(|cs| {
        [
            (&cs.exchange_in, format!("the exchange into compute set '{}'", cs.name)),
            (&cs.exchange_out, format!("the exchange out of compute set '{}'", cs.name)),
        ]
    });
    let copies = image.copies.iter().enumerate().map(|(i, x)| (x, format!("copy {i}")));
    for (x, what) in named.chain(copies) {
        exchange(image, x, &what)?;
    }
    Ok(())
}

fn exchange(image: &Image, x: &Exchange, what: &str) -> Result<(), String> {
    let t = &image.target;
    let per = t.tiles_per_ipu.max(1);
    let Some(tr) =
        x.transfers.iter().find(|tr| !t.links.connects(tr.src_tile / per, tr.dst_tile / per, t.ipus))
    else {
        return Ok(());
    };
    let (from, to) = (tr.src_tile / per, tr.dst_tile / per);
    let reached: Vec<String> = t.links.reached_from(from, t.ipus).iter().map(u32::to_string).collect();
    Err(format!(
        "{what} sends from IPU {from} (tile {}) to IPU {to} (tile {}), which ipuLinkConfiguration `{}` \
         does not connect in ipuLinkTopology `{}`: IPU {from} sends to IPUs {} only",
        tr.src_tile,
        tr.dst_tile,
        t.links.configuration_for(t.ipus),
        t.links.topology,
        reached.join(", ")
    ))
}

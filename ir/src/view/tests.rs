//! `View::index`'s subscripts, checked against the elements they name,
//! and its contiguous fast path against its general path.

use super::*;

/// The element offsets of `t[subs]` for a `[4, 6]` tensor.
fn offsets(subs: &[Subscript]) -> Result<Vec<u64>, ViewError> {
    let v = View::whole(TensorId(0), &[4, 6]).index(subs)?;
    Ok(v.elements().map(|(_, e)| e).collect())
}

fn slice(start: Option<i64>, end: Option<i64>, step: i64) -> Subscript {
    Subscript::Slice { start, end, step: Some(step) }
}

#[test]
fn negative_steps_count_down_as_pythons_slices() {
    // t[::-1]: the rows backwards, as reverse.
    let rows: Vec<u64> = [3u64, 2, 1, 0].iter().flat_map(|r| (0..6).map(move |c| r * 6 + c)).collect();
    assert_eq!(offsets(&[slice(None, None, -1)]).unwrap(), rows);
    // t[3:0:-2, 5::-4]: rows 3, 1; columns 5, 1.
    assert_eq!(
        offsets(&[slice(Some(3), Some(0), -2), slice(Some(5), None, -4)]).unwrap(),
        vec![23, 19, 11, 7]
    );
    // t[2, ::-3]: columns 5, 2 of row 2.
    assert_eq!(offsets(&[Subscript::Index(2), slice(None, None, -3)]).unwrap(), vec![17, 14]);
    // t[1:1:-1] is empty.
    assert_eq!(offsets(&[slice(Some(1), Some(1), -1)]).unwrap(), Vec::<u64>::new());
}

#[test]
fn the_contiguous_fast_path_gives_the_general_paths_views() {
    let t = TensorId(0);
    let whole = View::whole(t, &[48]);
    let bases = [
        View::whole(t, &[4, 6]),
        View::whole(t, &[2, 3, 4]),
        View::whole(t, &[1, 5]),
        whole.index(&[slice(Some(7), Some(31), 1)]).unwrap().reshape(&[2, 3, 4]).unwrap(),
        whole.index(&[slice(Some(3), Some(4), 1)]).unwrap(),
        whole.index(&[slice(Some(3), Some(3), 1)]).unwrap(),
    ];
    let mut subs = vec![Subscript::Index(0), Subscript::Index(1), Subscript::Index(3), Subscript::Index(-1)];
    for (a, b) in
        [(None, None), (Some(0), Some(1)), (Some(1), Some(3)), (Some(2), Some(2)), (Some(3), Some(2))]
    {
        for step in [None, Some(1), Some(2)] {
            subs.push(Subscript::Slice { start: a, end: b, step });
        }
    }
    subs.push(slice(Some(0), Some(4), 1));
    subs.push(slice(Some(0), Some(6), 1));
    let mut fast = 0;
    for base in &bases {
        for &s0 in &subs {
            for &s1 in &subs {
                for list in [vec![], vec![s0], vec![s0, s1], vec![s0, s1, s0]] {
                    fast += usize::from(base.contiguous_index(&list).is_some());
                    assert_eq!(base.index(&list), base.index_general(&list), "{base:?}{list:?}");
                }
            }
        }
    }
    assert!(fast > 100, "the fast path took {fast} cases");
}

#[test]
fn negative_steps_keep_strict_bounds() {
    assert!(offsets(&[slice(Some(4), None, -1)]).unwrap_err().contains("slice start 4 is out of range"));
    assert!(offsets(&[slice(None, Some(-1), -1)]).unwrap_err().contains("slice end -1 is out of range"));
    assert!(offsets(&[slice(Some(1), Some(3), -1)]).unwrap_err().contains("reversed"));
    assert!(offsets(&[slice(None, None, 0)]).unwrap_err().contains("must not be 0"));
}

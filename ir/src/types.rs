//! Scalar element types of tensors, streams and vertex fields: the shared
//! vocabulary's [`ElemType`] (a PIR program declares the eleven of
//! [`ElemType::PIR`]; `from_pir` and the printer keep to them).

pub use vocab::ElemType;

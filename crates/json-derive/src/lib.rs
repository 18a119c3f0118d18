//! `#[derive(WriteJson)]`, re-exported by arena-base's `json` module.
//!
//! The writer is made from the same definition and the same `#[serde]`
//! attributes serde's `Serialize` derive reads, so the two cannot drift
//! apart: a type names its fields once. Only the attributes whose output
//! this derive reproduces are accepted; any other one that changes how a
//! value serializes is a compile error rather than different bytes.
//!
//! | shape | JSON, as serde_json writes it |
//! |---|---|
//! | struct with named fields | `{"field":value,...}` |
//! | newtype struct | the inner value |
//! | unit variant | `"name"` |
//! | variant with data, externally tagged | `{"name":data}` |
//! | struct or unit variant, `tag = "type"` | `{"type":"name","field":value,...}` |
//!
//! Understood: `rename_all` (`lowercase`, `snake_case`, `UPPERCASE`) and
//! `tag` on the type, `rename` on a field or variant, and
//! `skip_serializing_if = "Option::is_none"` on a field. Attributes that
//! only deserializing reads (`default`, `deny_unknown_fields`, `alias`)
//! are let through.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, Fields, LitStr, parse_macro_input};

/// Derives `arena_base::json::WriteJson`; see the crate's documentation.
#[proc_macro_derive(WriteJson, attributes(serde))]
pub fn derive_write_json(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(Error::into_compile_error).into()
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let container = SerdeAttributes::of(&input.attrs, Place::Container)?;
    let body = match &input.data {
        Data::Struct(data) => {
            if container.tag.is_some() {
                return Err(Error::new(input.span(), "`tag` applies to enums"));
            }
            write_struct(&data.fields, &container)?
        }
        Data::Enum(data) => write_enum(data, &container)?,
        Data::Union(_) => {
            return Err(Error::new(input.span(), "WriteJson cannot be derived for a union"));
        }
    };
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for parameter in generics.type_params_mut() {
        parameter.bounds.push(syn::parse_quote!(::arena_base::json::WriteJson));
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::arena_base::json::WriteJson for #name #type_generics #where_clause {
            #[inline]
            fn write_json(&self, out: &mut ::std::vec::Vec<u8>) {
                #body
            }
        }
    })
}

/// A struct: its fields read from `self`.
fn write_struct(fields: &Fields, container: &SerdeAttributes) -> syn::Result<TokenStream> {
    match fields {
        Fields::Named(named) => {
            let (names, bindings) = bind_named(named);
            let object = write_object(named.named.iter().zip(&bindings), container, None)?;
            Ok(quote! {
                let Self { #(#names: #bindings),* } = self;
                #object
            })
        }
        Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
            SerdeAttributes::of(&unnamed.unnamed[0].attrs, Place::Field)?
                .refuse_field_options(unnamed.span())?;
            Ok(quote! { ::arena_base::json::WriteJson::write_json(&self.0, out); })
        }
        Fields::Unnamed(unnamed) => {
            let bindings: Vec<_> =
                (0..unnamed.unnamed.len()).map(|index| format_ident!("field_{index}")).collect();
            let array = write_array(&bindings);
            Ok(quote! {
                let Self(#(#bindings),*) = self;
                #array
            })
        }
        Fields::Unit => Ok(quote! { out.extend_from_slice(b"null"); }),
    }
}

fn write_enum(data: &syn::DataEnum, container: &SerdeAttributes) -> syn::Result<TokenStream> {
    let mut arms = Vec::new();
    for variant in &data.variants {
        let attributes = SerdeAttributes::of(&variant.attrs, Place::Variant)?;
        let name = attributes
            .rename
            .clone()
            .unwrap_or_else(|| container.renamed(&variant.ident.unraw().to_string()));
        check_plain(&name, variant.span())?;
        let ident = &variant.ident;
        let quoted = format!("\"{name}\"");
        let arm = match (&variant.fields, &container.tag) {
            (Fields::Unit, None) => quote! {
                Self::#ident => out.extend_from_slice(#quoted.as_bytes()),
            },
            (Fields::Unit, Some(tag)) => {
                let text = format!("{{\"{tag}\":{quoted}}}");
                quote! { Self::#ident => out.extend_from_slice(#text.as_bytes()), }
            }
            (Fields::Named(named), tag) => {
                let (names, bindings) = bind_named(named);
                let plain = SerdeAttributes::default();
                let body = match tag {
                    Some(tag) => {
                        write_object(named.named.iter().zip(&bindings), &plain, Some((tag, &name)))?
                    }
                    None => {
                        let inner = write_object(named.named.iter().zip(&bindings), &plain, None)?;
                        let open = format!("{{{quoted}:");
                        quote! {
                            out.extend_from_slice(#open.as_bytes());
                            #inner
                            out.push(b'}');
                        }
                    }
                };
                quote! { Self::#ident { #(#names: #bindings),* } => { #body } }
            }
            (Fields::Unnamed(unnamed), None) => {
                let bindings: Vec<_> = (0..unnamed.unnamed.len())
                    .map(|index| format_ident!("field_{index}"))
                    .collect();
                let inner = if bindings.len() == 1 {
                    let only = &bindings[0];
                    quote! { ::arena_base::json::WriteJson::write_json(#only, out); }
                } else {
                    write_array(&bindings)
                };
                let open = format!("{{{quoted}:");
                quote! {
                    Self::#ident(#(#bindings),*) => {
                        out.extend_from_slice(#open.as_bytes());
                        #inner
                        out.push(b'}');
                    }
                }
            }
            (Fields::Unnamed(unnamed), Some(_)) => {
                return Err(Error::new(
                    unnamed.span(),
                    "WriteJson writes tagged variants with named fields or none; write this type's impl by hand",
                ));
            }
        };
        arms.push(arm);
    }
    if arms.is_empty() {
        return Ok(quote! { match *self {} });
    }
    Ok(quote! { match self { #(#arms)* } })
}

/// An object of `fields`, each bound to a reference of the same name, with
/// a tag entry first when there is one.
fn write_object<'a>(
    fields: impl Iterator<Item = (&'a syn::Field, &'a syn::Ident)>,
    container: &SerdeAttributes,
    tag: Option<(&String, &String)>,
) -> syn::Result<TokenStream> {
    let mut steps = Vec::new();
    // Whether a field is surely written before this one: then the comma is
    // written without a test (the usual case, and most of the cost).
    let mut surely_started = false;
    if let Some((tag, name)) = tag {
        let text = format!("{{\"{tag}\":\"{name}\"");
        steps.push(quote! { out.extend_from_slice(#text.as_bytes()); });
        surely_started = true;
    } else {
        steps.push(quote! { out.push(b'{'); });
    }
    let mut any_optional = false;
    for (field, binding) in fields {
        let attributes = SerdeAttributes::of(&field.attrs, Place::Field)?;
        let field_name = field.ident.as_ref().expect("named fields").unraw().to_string();
        let key = attributes.rename.clone().unwrap_or_else(|| container.renamed(&field_name));
        check_plain(&key, field.span())?;
        let key_text = format!("\"{key}\":");
        let separator = if surely_started {
            quote! { out.push(b','); }
        } else if any_optional {
            quote! { if started { out.push(b','); } started = true; }
        } else {
            quote! { started = true; }
        };
        if attributes.skip_if_none {
            any_optional = true;
            steps.push(quote! {
                if let ::std::option::Option::Some(value) = #binding {
                    #separator
                    out.extend_from_slice(#key_text.as_bytes());
                    ::arena_base::json::WriteJson::write_json(value, out);
                }
            });
        } else {
            steps.push(quote! {
                #separator
                out.extend_from_slice(#key_text.as_bytes());
                ::arena_base::json::WriteJson::write_json(#binding, out);
            });
            surely_started = true;
        }
    }
    steps.push(quote! { out.push(b'}'); });
    Ok(quote! {
        #[allow(unused_mut, unused_variables, unused_assignments)]
        let mut started = false;
        #(#steps)*
    })
}

/// The fields' names and the names they are bound to, which cannot meet
/// the writer's own (`out`, `started`, `value`).
fn bind_named(named: &syn::FieldsNamed) -> (Vec<syn::Ident>, Vec<syn::Ident>) {
    named
        .named
        .iter()
        .map(|field| {
            let name = field.ident.clone().expect("named fields");
            let binding = format_ident!("field_{}", name.unraw());
            (name, binding)
        })
        .unzip()
}

fn write_array(bindings: &[syn::Ident]) -> TokenStream {
    let Some((first, rest)) = bindings.split_first() else {
        return quote! { out.extend_from_slice(b"[]"); };
    };
    quote! {
        out.push(b'[');
        ::arena_base::json::WriteJson::write_json(#first, out);
        #(
            out.push(b',');
            ::arena_base::json::WriteJson::write_json(#rest, out);
        )*
        out.push(b']');
    }
}

/// A key or name written as it is must need no escaping.
fn check_plain(name: &str, span: proc_macro2::Span) -> syn::Result<()> {
    if name.chars().all(|character| character >= ' ' && character != '"' && character != '\\') {
        Ok(())
    } else {
        Err(Error::new(
            span,
            format!("WriteJson writes names as they are; `{name}` would need escaping"),
        ))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Place {
    Container,
    Variant,
    Field,
}

/// The `#[serde(...)]` attributes of one place that change what is written.
#[derive(Default)]
struct SerdeAttributes {
    rename: Option<String>,
    rename_all: Option<String>,
    tag: Option<String>,
    skip_if_none: bool,
}

impl SerdeAttributes {
    fn of(attributes: &[syn::Attribute], place: Place) -> syn::Result<SerdeAttributes> {
        let mut found = SerdeAttributes::default();
        for attribute in attributes.iter().filter(|attribute| attribute.path().is_ident("serde")) {
            attribute.parse_nested_meta(|meta| {
                let word = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                match (word.as_str(), place) {
                    ("rename", Place::Field | Place::Variant) => {
                        found.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                    }
                    ("rename_all", Place::Container) => {
                        let rule = meta.value()?.parse::<LitStr>()?;
                        if !matches!(rule.value().as_str(), "lowercase" | "snake_case" | "UPPERCASE") {
                            return Err(Error::new(rule.span(), "WriteJson knows rename_all = lowercase, snake_case or UPPERCASE"));
                        }
                        found.rename_all = Some(rule.value());
                    }
                    ("tag", Place::Container) => found.tag = Some(meta.value()?.parse::<LitStr>()?.value()),
                    ("skip_serializing_if", Place::Field) => {
                        let test = meta.value()?.parse::<LitStr>()?;
                        if test.value() != "Option::is_none" {
                            return Err(Error::new(test.span(), "WriteJson knows skip_serializing_if = \"Option::is_none\" only"));
                        }
                        found.skip_if_none = true;
                    }
                    // Read by deserializing only: the bytes written are the same.
                    ("default", _) | ("deny_unknown_fields", Place::Container) | ("alias", Place::Field | Place::Variant) => {
                        if meta.input.peek(syn::Token![=]) {
                            meta.value()?.parse::<syn::Expr>()?;
                        }
                    }
                    _ => {
                        return Err(meta.error(format!(
                            "WriteJson does not follow serde's `{word}` here; write this type's impl by hand"
                        )));
                    }
                }
                Ok(())
            })?;
        }
        Ok(found)
    }

    fn refuse_field_options(&self, span: proc_macro2::Span) -> syn::Result<()> {
        if self.rename.is_some() || self.skip_if_none {
            return Err(Error::new(span, "a newtype's field has no name to rename or skip"));
        }
        Ok(())
    }

    /// `name` (a Rust identifier) as `rename_all` spells it.
    fn renamed(&self, name: &str) -> String {
        match self.rename_all.as_deref() {
            Some("lowercase") => name.to_lowercase(),
            Some("UPPERCASE") => name.to_uppercase(),
            Some("snake_case") => {
                // serde's rule: an underscore before each capital but the first.
                let mut snake = String::new();
                for (index, character) in name.char_indices() {
                    if character.is_uppercase() {
                        if index > 0 {
                            snake.push('_');
                        }
                        snake.extend(character.to_lowercase());
                    } else {
                        snake.push(character);
                    }
                }
                snake
            }
            _ => name.to_owned(),
        }
    }
}

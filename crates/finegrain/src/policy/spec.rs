//! Parsing policy spec strings: `name` or `name:opt=value,opt=value`.

use crate::error::Error;

/// What the user asked for, split into the policy name and its options. Each
/// policy's `build` takes the options it knows; `finish` rejects the rest. An
/// option given twice is an error (`parse`), not "the last one wins": a spec
/// means one configuration.
#[derive(Debug)]
pub struct Spec<'a> {
    pub(crate) name: &'a str,
    opts: Vec<(&'a str, &'a str, bool)>,
    policy: &'static str,
}

impl<'a> Spec<'a> {
    pub(crate) fn parse(text: &'a str) -> Result<Spec<'a>, Error> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), r),
            None => (text, ""),
        };
        let mut opts = Vec::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((k, v)) = part.split_once('=').map(|(k, v)| (k.trim(), v.trim())).filter(|(k, v)| !k.is_empty() && !v.is_empty()) else {
                return Err(Error::Malformed { spec: text.to_string(), part: part.to_string() });
            };
            if opts.iter().any(|o: &(&str, &str, bool)| o.0 == k) {
                return Err(Error::DuplicateOption { spec: text.to_string(), option: k.to_string() });
            }
            opts.push((k, v, false));
        }
        Ok(Spec { name, opts, policy: "" })
    }

    pub(crate) fn for_policy(mut self, policy: &'static str) -> Self {
        self.policy = policy;
        self
    }

    /// The value of option `key` (each option occurs at most once: `parse`).
    fn take(&mut self, key: &str) -> Option<&'a str> {
        let o = self.opts.iter_mut().find(|o| o.0 == key)?;
        o.2 = true;
        Some(o.1)
    }

    /// An option whose value is one of `choices`.
    pub fn choice(&mut self, key: &'static str, choices: &[&'static str], default: &'static str) -> Result<&'static str, Error> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => choices.iter().copied().find(|c| *c == v).ok_or_else(|| Error::BadValue {
                policy: self.policy,
                option: key,
                value: v.to_string(),
                valid: choices.join(" | "),
            }),
        }
    }

    /// An integer option in `lo..=hi`.
    pub fn int(&mut self, key: &'static str, lo: usize, hi: usize, default: usize) -> Result<usize, Error> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => match v.parse::<usize>() {
                Ok(x) if (lo..=hi).contains(&x) => Ok(x),
                _ => Err(Error::BadValue { policy: self.policy, option: key, value: v.to_string(), valid: format!("an integer in {lo}..={hi}") }),
            },
        }
    }

    /// Raw value of an option whose syntax the policy checks itself.
    pub fn raw(&mut self, key: &'static str) -> Option<&'a str> {
        self.take(key)
    }

    /// Fail on any option the policy did not take.
    pub fn finish(self, valid: &[&'static str]) -> Result<(), Error> {
        match self.opts.iter().find(|o| !o.2) {
            Some(o) => Err(Error::UnknownOption { policy: self.policy, option: o.0.to_string(), valid: valid.to_vec() }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_given_twice_is_an_error_naming_it() {
        for (text, option) in [("ws:victim=random,victim=nearest", "victim"), ("ws:steal=one, steal = one", "steal"), ("carbon:x=1,y=2,x=1", "x")] {
            let e = Spec::parse(text).unwrap_err();
            assert!(matches!(&e, Error::DuplicateOption { option: o, .. } if o == option), "{text}: {e:?}");
            assert!(e.to_string().contains(&format!("{option:?}")) && e.to_string().contains("more than once"), "{e}");
        }
        let mut s = Spec::parse("ws:victim=random,steal=one").unwrap();
        assert_eq!((s.raw("victim"), s.raw("steal"), s.raw("order")), (Some("random"), Some("one"), None));
    }
}

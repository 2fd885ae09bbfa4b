//! The Lua scripts (insert, query, remove), their loading and `EVALSHA`, and the
//! pipelines that run them for a batch of inserts or queries.

use std::sync::OnceLock;

use redis::Value;
use tessera_engine::sketch::Signature;

use super::RedisMinHashLsh;
use super::keys::Entry;
use super::link::Failure;

/// Inserts one key unless it is there: KEYS = keys hash, ids hash, id counter, buckets;
/// ARGV = stored key, packed band keys. Returns the new id, or 0 for a key already in.
const INSERT_LUA: &str = r"
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local id = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], id .. ':' .. ARGV[2])
redis.call('HSET', KEYS[2], id, ARGV[1])
for i = 4, #KEYS do redis.call('SADD', KEYS[i], id) end
return id
";

/// The stored keys of the union of buckets, in id order: KEYS = ids hash, buckets (at
/// least one). `HMGET` takes the ids in slices: Lua's `unpack` stops at 8000 values.
const QUERY_LUA: &str = r"
local ids = redis.call('SUNION', unpack(KEYS, 2))
for i = 1, #ids do ids[i] = tonumber(ids[i]) end
table.sort(ids)
local out = {}
for s = 1, #ids, 4000 do
  local part = redis.call('HMGET', KEYS[1], unpack(ids, s, math.min(s + 3999, #ids)))
  for j = 1, #part do
    if part[j] then out[#out + 1] = part[j] end
  end
end
return out
";

/// Removes one key if its record is still the one read: KEYS = keys hash, ids hash,
/// buckets; ARGV = stored key, the record read, its id. Returns 1 (removed), 0 (no such
/// key) or -1 (the record changed since it was read: read again).
pub(crate) const REMOVE_LUA: &str = r"
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
if v ~= ARGV[2] then return -1 end
for i = 3, #KEYS do redis.call('SREM', KEYS[i], ARGV[3]) end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[3])
return 1
";

/// The three scripts with their SHA1s, computed once.
pub(crate) struct Scripts {
    insert: redis::Script,
    query: redis::Script,
    pub(crate) remove: redis::Script,
}

pub(crate) fn scripts() -> &'static Scripts {
    static SCRIPTS: OnceLock<Scripts> = OnceLock::new();
    SCRIPTS.get_or_init(|| Scripts {
        insert: redis::Script::new(INSERT_LUA),
        query: redis::Script::new(QUERY_LUA),
        remove: redis::Script::new(REMOVE_LUA),
    })
}

/// Starts an `EVALSHA` of `script` in `pipe`. Every pipeline that runs a script first
/// sends `SCRIPT LOAD` of it (cheap when the server has it), so a restarted or flushed
/// server never answers `NOSCRIPT` halfway through a batch.
pub(crate) fn load(pipe: &mut redis::Pipeline, source: &str) {
    pipe.cmd("SCRIPT").arg("LOAD").arg(source).ignore();
}

pub(crate) fn evalsha<'a>(
    pipe: &'a mut redis::Pipeline,
    script: &redis::Script,
    keys: usize,
) -> &'a mut redis::Pipeline {
    pipe.cmd("EVALSHA").arg(script.get_hash()).arg(keys)
}

fn bytes_of(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

impl RedisMinHashLsh {
    /// Inserts a batch in one pipeline: per entry, whether it went in (false: the key
    /// was there already).
    pub(crate) fn insert_batch(&self, batch: &[Entry]) -> Result<Vec<bool>, Failure> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let s = scripts();
        let mut pipe = redis::pipe();
        if self.transaction {
            pipe.atomic();
        }
        load(&mut pipe, INSERT_LUA);
        let mut packed = Vec::new();
        for e in batch {
            packed.clear();
            for k in &e.bands {
                packed.extend_from_slice(&k.to_be_bytes());
            }
            evalsha(&mut pipe, &s.insert, 3 + e.bands.len())
                .arg(&self.names.keys)
                .arg(&self.names.ids)
                .arg(&self.names.next);
            for (band, &k) in e.bands.iter().enumerate() {
                pipe.arg(self.names.bucket(band, k));
            }
            pipe.arg(&e.key).arg(&packed);
        }
        let ids: Vec<i64> = self.run(|c| pipe.query(c))?;
        Ok(ids.into_iter().map(|id| id > 0).collect())
    }

    /// The stored keys each signature's buckets hold, in one pipeline. Checks the seed
    /// against the stored one when this object has not learnt it yet.
    pub(crate) fn query_batch_raw(&self, sigs: &[Signature], seed: u64) -> Result<Vec<Vec<Vec<u8>>>, Failure> {
        if let Some(&known) = self.seed.get()
            && known != seed
        {
            return Err(self.seed_mismatch("query", seed, known));
        }
        let learn_seed = self.seed.get().is_none();
        let s = scripts();
        let mut pipe = redis::pipe();
        if learn_seed {
            pipe.cmd("GET").arg(&self.names.seed);
        }
        let mut asked = Vec::with_capacity(sigs.len());
        let mut loaded = false;
        for sig in sigs {
            let fits = self.params.fits(sig);
            if fits && !loaded {
                load(&mut pipe, QUERY_LUA);
                loaded = true;
            }
            asked.push(fits);
            if fits {
                evalsha(&mut pipe, &s.query, 1 + self.params.bands).arg(&self.names.ids);
                for band in 0..self.params.bands {
                    pipe.arg(self.names.bucket(band, self.params.band_key(sig, band)));
                }
            }
        }
        if pipe.is_empty() {
            return Ok(vec![Vec::new(); sigs.len()]);
        }
        let replies: Vec<Value> = self.run(|c| pipe.query(c))?;
        let mut replies = replies.into_iter();
        let unexpected = || Failure::Server(format!("redis at {}: an unexpected answer to a query", self.address()));
        if learn_seed {
            let stored = replies.next().ok_or_else(unexpected)?;
            if let Some(b) = bytes_of(&stored) {
                let stored: u64 = std::str::from_utf8(b).ok().and_then(|s| s.parse().ok()).ok_or_else(unexpected)?;
                let _ = self.seed.set(stored);
                if stored != seed {
                    return Err(self.seed_mismatch("query", seed, stored));
                }
            }
        }
        let mut out = Vec::with_capacity(sigs.len());
        for fits in asked {
            if !fits {
                out.push(Vec::new());
                continue;
            }
            let Some(Value::Array(items)) = replies.next() else { return Err(unexpected()) };
            let keys = items.iter().map(|v| bytes_of(v).map(<[u8]>::to_vec)).collect::<Option<Vec<_>>>();
            out.push(keys.ok_or_else(unexpected)?);
        }
        Ok(out)
    }
}

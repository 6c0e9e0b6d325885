"""The ids of one id-range crawl, handed out to the workers of shared mode in claimed chunks.

Ids are numbered by their index in the round, ``id = base + index * step``. A worker claims
a chunk of ``NEWSEXTRACT_ID_CHUNK`` indexes (``INCR`` of a counter: no two workers probe
the same id) and probes its ids one by one; the claim carries the worker's name, and the
worker's lease (:mod:`newsextract.sharedmode.state`) keeps it. A chunk whose worker died
goes back to the pool: the next claim takes it before a new one, and skips the ids already
answered (a bitmap of answered indexes) or still open in the state store (the dead worker's
open requests, recovered on their own by the next worker that starts). Keys, under
``P:idrange:CRAWL:``: ``base``, ``chunks`` (the counter), ``claims`` (chunk -> worker),
``answered`` (the bitmap), ``hit`` (the highest index that gave a page) and ``members``
(the workers that joined the round).

Each answer takes the next id from the pool of the worker that got it. The queue is shared,
so that may not be the worker that asked: a worker left with nothing in flight takes its
next ids when it goes idle (the spider's ``idle_requests``, asked by the shared scheduler),
or the rest of its chunk would stay claimed, and unprobed, to the end.

The stop rule, across workers
    As for one process (:class:`~newsextract.spiders.idrange.MissRun`): the crawl is
    exhausted once the ``max_misses`` ids after the highest id that gave a page have all
    answered, and so all missed (an answer above the highest hit is a miss by definition;
    each answer and the hit mark move in one script). Every worker asks before each id it
    probes and before each chunk it claims. Once the answer is yes, it still probes the ids
    of its chunk that lie before the highest page (a slower worker's chunk below a faster
    one's pages), and a dead worker's chunk that begins there, and nothing after them; a
    page found by a request still in flight raises the mark, and a worker still running
    goes on past it. What a dead worker left in flight is recovered through the state store.

Rounds
    The first worker of a crawl sets ``base`` (where a re-run resumes: after the highest id
    recorded). The round is over when it is exhausted, or every chunk of a bounded range is
    handed out, and none of its members is alive (a member still waiting for its last
    answers holds no chunk, but its requests are still in flight); the next worker to start
    then begins a new round from its own first id, so a scheduled re-run probes the ids
    after the last page again. A worker that starts while a round is under way joins it
    (its own ``ids`` do not change the round's). Claims and answers name the round's base:
    a worker whose round was begun anew under it (its lease lapsed) takes no more ids and
    its late answers are not counted in the new round.
"""

from __future__ import annotations

from collections.abc import Callable

from newsextract.sharedmode.state import RedisStateStore

#: Ids claimed at once. 100 keeps the claims to one Redis call per 100 ids; a worker that
#: finds the crawl exhausted leaves the rest of its chunk unprobed, so a larger chunk does
#: not mean more requests past the end.
ID_CHUNK_DEFAULT = 100

_LIB = """
local function exhausted(answered, hit, misses)
  local last = tonumber(redis.call('GET', hit) or '-1')
  for index = last + 1, last + math.max(misses, 1) do
    if redis.call('GETBIT', answered, index) == 0 then return false end
  end
  return true
end
local function handed_out(base, chunks, size, step, last_id)
  if last_id < 0 then return false end
  local count = tonumber(redis.call('GET', chunks) or '0')
  return tonumber(base) + count * size * step > last_id
end
local function any_alive(workers, lease_prefix)
  for _, worker in ipairs(workers) do
    if redis.call('EXISTS', lease_prefix .. worker) == 1 then return true end
  end
  return false
end
"""

# KEYS: base, chunks, claims, answered, hit, members.
# ARGV: first id, max misses, lease prefix, chunk size, step, last id (-1: none), worker.
_BEGIN = (
    _LIB
    + """
local misses, size, step, last_id = tonumber(ARGV[2]), tonumber(ARGV[4]), tonumber(ARGV[5]),
  tonumber(ARGV[6])
local base = redis.call('GET', KEYS[1])
if base then
  local done = exhausted(KEYS[4], KEYS[5], misses)
      or handed_out(base, KEYS[2], size, step, last_id)
  if done and not any_alive(redis.call('SMEMBERS', KEYS[6]), ARGV[3]) then
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
    base = false
  end
end
if not base then
  redis.call('SET', KEYS[1], ARGV[1])
  base = ARGV[1]
end
redis.call('SADD', KEYS[6], ARGV[7])
return base
"""
)

# KEYS: base, chunks, claims, answered, hit.
# ARGV: worker, lease prefix, max misses, chunk size, step, last id (-1: none), the
# worker's base. Returns {chunk, 1 if taken over from a dead worker}, {-1, 0} exhausted (or
# the worker's round is gone), {-2, 0} every chunk of the range handed out.
_CLAIM = (
    _LIB
    + """
local size, step, last_id = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local base = tonumber(redis.call('GET', KEYS[1]))
if base ~= tonumber(ARGV[7]) then return {-1, 0} end
local over = exhausted(KEYS[4], KEYS[5], tonumber(ARGV[3]))
local last = tonumber(redis.call('GET', KEYS[5]) or '-1')
local claims = redis.call('HGETALL', KEYS[3])
for i = 1, #claims, 2 do
  local owner = claims[i + 1]
  local before_last = tonumber(claims[i]) * size < last
  if (owner == ARGV[1] or redis.call('EXISTS', ARGV[2] .. owner) == 0)
      and (not over or before_last) then
    redis.call('HSET', KEYS[3], claims[i], ARGV[1])
    return {tonumber(claims[i]), 1}
  end
end
if over then return {-1, 0} end
local chunk = redis.call('INCR', KEYS[2]) - 1
if last_id >= 0 and base + chunk * size * step > last_id then return {-2, 0} end
redis.call('HSET', KEYS[3], chunk, ARGV[1])
return {chunk, 0}
"""
)

# KEYS: answered, hit, base. ARGV: max misses, the worker's base. Returns -2 while the crawl
# goes on, -3 once the worker's round is gone; once it is exhausted, the index of the
# highest page (-1: none).
_LAST_PAGE_IF_EXHAUSTED = (
    _LIB
    + """
if tonumber(redis.call('GET', KEYS[3])) ~= tonumber(ARGV[2]) then return -3 end
if not exhausted(KEYS[1], KEYS[2], tonumber(ARGV[1])) then return -2 end
return tonumber(redis.call('GET', KEYS[2]) or '-1')
"""
)
_GOING_ON = -2
_ROUND_GONE = -3

# KEYS: answered, hit, base. ARGV: index, 1 for a page, the worker's base.
_ANSWER = """
if tonumber(redis.call('GET', KEYS[3])) ~= tonumber(ARGV[3]) then return 0 end
redis.call('SETBIT', KEYS[1], ARGV[1], 1)
if ARGV[2] == '1' then
  local last = tonumber(redis.call('GET', KEYS[2]) or '-1')
  if tonumber(ARGV[1]) > last then redis.call('SET', KEYS[2], ARGV[1]) end
end
return 0
"""

# KEYS: claims. ARGV: chunk, worker.
_RELEASE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


class IdPool:
    """This worker's share of an id range; see the module docstring."""

    def __init__(
        self,
        store: RedisStateStore,
        crawl: str,
        step: int,
        end: int | None,
        max_misses: int,
        chunk_size: int = ID_CHUNK_DEFAULT,
    ) -> None:
        self.store = store
        self.crawl = crawl
        self.step = step
        self.end = end
        self.max_misses = max_misses
        self.chunk_size = max(1, chunk_size)
        self.base: int | None = None
        self._chunk: int | None = None
        self._next = 0  # the next offset in the chunk
        self._taken_over = False
        client = store.client
        self._begin = client.register_script(_BEGIN)
        self._claim = client.register_script(_CLAIM)
        self._last_page_if_exhausted = client.register_script(_LAST_PAGE_IF_EXHAUSTED)
        self._answer = client.register_script(_ANSWER)
        self._release = client.register_script(_RELEASE)

    def key(self, name: str) -> str:
        return self.store.key("idrange", self.crawl, name)

    @property
    def _keys(self) -> list[str]:
        names = ("base", "chunks", "claims", "answered", "hit", "members")
        return [self.key(name) for name in names]

    def begin(self, first: int) -> int:
        """Join the round under way, or begin one at ``first``; returns the round's first id."""
        args: list[str | int] = [first, self.max_misses, self.store.lease_key("")]
        args += [self.chunk_size, self.step]
        args += [-1 if self.end is None else self.end, self.store.worker]
        self.base = int(self.store.call(lambda: self._begin(self._keys, args)))
        return self.base

    def exhausted(self) -> bool:
        """Whether this worker's round is exhausted (or gone: begun anew under it)."""
        return self._last_page_index() != _GOING_ON

    def _last_page_index(self) -> int:
        """The index of the highest page once the crawl is exhausted, else ``_GOING_ON``."""
        keys = [self.key("answered"), self.key("hit"), self.key("base")]
        args = [self.max_misses, self.base or 0]
        return int(self.store.call(lambda: self._last_page_if_exhausted(keys, args)))

    def take(self, is_open: Callable[[int], bool]) -> int | None:
        """The next id this worker probes, or None once every id is handed out, or the crawl
        is exhausted and no id before its highest page is left. ``is_open(id)``: whether the
        id's request is open in the state store (asked only in a chunk taken over from a dead
        worker)."""
        assert self.base is not None, "begin() first"
        while True:
            if self._chunk is None and not self._claim_chunk():
                return None
            assert self._chunk is not None
            index = self._chunk * self.chunk_size + self._next
            value = self.base + index * self.step
            if self._next >= self.chunk_size or (self.end is not None and value > self.end):
                self.release()
                continue
            last_page = self._last_page_index()
            if last_page == _ROUND_GONE:
                self._chunk = None  # its claim went with the round
                return None
            if last_page != _GOING_ON and index > last_page:
                return None
            self._next += 1
            if self._taken_over and (self._is_answered(index) or is_open(value)):
                continue
            return value

    def answered(self, value: int, hit: bool) -> None:
        """Id ``value`` answered (``hit``: with a page), whichever worker asked for it."""
        index = self._index(value)
        if index is not None:
            keys = [self.key("answered"), self.key("hit"), self.key("base")]
            self.store.call(lambda: self._answer(keys, [index, int(hit), self.base or 0]))

    def release(self) -> None:
        """Give up the chunk in hand: every id of it is handed out (or the worker stops)."""
        if self._chunk is not None:
            chunk, self._chunk = self._chunk, None
            args: list[str | int] = [chunk, self.store.worker]
            self.store.call(lambda: self._release([self.key("claims")], args))

    def _claim_chunk(self) -> bool:
        args: list[str | int] = [self.store.worker, self.store.lease_key(""), self.max_misses]
        args.append(self.chunk_size)
        args += [self.step, -1 if self.end is None else self.end, self.base or 0]
        chunk, taken_over = self.store.call(lambda: self._claim(self._keys[:5], args))
        if int(chunk) < 0:
            return False
        self._chunk, self._next, self._taken_over = int(chunk), 0, bool(taken_over)
        return True

    def _is_answered(self, index: int) -> bool:
        answered = self.key("answered")
        return bool(self.store.call(lambda: self.store.client.getbit(answered, index)))

    def _index(self, value: int) -> int | None:
        """The index of ``value`` in this round (None: not one of its ids)."""
        if self.base is None or value < self.base or (value - self.base) % self.step:
            return None
        return (value - self.base) // self.step

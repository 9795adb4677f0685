"""Rate-limit buckets in the database: two engines on one database (two server processes)
count together, concurrent takes never spend more tokens than there are, buckets refill at
their rate, and rows full again are swept. On a SQLite file and on PostgreSQL. On SQLite they
stay out of the ledger's file, which a take must not write to."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from fairdeal.ledger import ratelimits
from fairdeal.ledger.ratelimits import SharedBuckets
from fairdeal.ledger.store import EventStore, open_engine


@pytest.fixture
def twin(engine: Engine) -> Iterator[Engine]:
    """A second engine on the same database: what another server process would open."""
    url = engine.url.render_as_string(hide_password=False)
    if engine.dialect.name == "sqlite":
        other = open_engine(url)
    else:
        with engine.connect() as conn:
            schema = conn.execute(text("SHOW search_path")).scalar_one()
        other = open_engine(url, pg_schema=schema.strip('"'), create=False)
    yield other
    other.dispose()


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_two_processes_on_one_database_share_each_bucket(engine: Engine, twin: Engine) -> None:
    clock = Clock()
    one, two = SharedBuckets(engine, clock), SharedBuckets(twin, clock)
    assert one.take("create", "10.0.0.1", 3, 60.0) is None
    assert two.take("create", "10.0.0.1", 3, 60.0) is None
    assert one.take("create", "10.0.0.1", 3, 60.0) is None
    # the fourth, through either process, finds the bucket empty: 20 s until a token is back
    assert two.take("create", "10.0.0.1", 3, 60.0) == pytest.approx(20.0)
    assert one.take("create", "10.0.0.1", 3, 60.0) == pytest.approx(20.0)
    # another address, and another kind, have buckets of their own
    assert two.take("create", "10.0.0.2", 3, 60.0) is None
    assert two.take("import", "10.0.0.1", 3, 60.0) is None


def test_a_bucket_refills_at_its_rate_and_not_past_its_size(engine: Engine) -> None:
    clock = Clock()
    buckets = SharedBuckets(engine, clock)
    assert buckets.take("upload", "a", 2, 10.0) is None
    assert buckets.take("upload", "a", 2, 10.0) is None
    assert buckets.take("upload", "a", 2, 10.0) == pytest.approx(5.0)
    clock.now += 5.0  # one token back
    assert buckets.take("upload", "a", 2, 10.0) is None
    assert buckets.take("upload", "a", 2, 10.0) == pytest.approx(5.0)
    clock.now += 3600.0  # an hour later the bucket holds 2, not 720
    assert [buckets.take("upload", "a", 2, 10.0) for _ in range(3)][2] is not None


def test_a_clock_set_back_refills_nothing(engine: Engine) -> None:
    clock = Clock()
    buckets = SharedBuckets(engine, clock)
    assert buckets.take("create", "a", 1, 10.0) is None
    clock.now -= 3600.0
    assert buckets.take("create", "a", 1, 10.0) is not None
    clock.now += 3600.0 + 10.0  # ten seconds after the stamp that stayed: one token back
    assert buckets.take("create", "a", 1, 10.0) is None


def test_concurrent_takes_through_two_engines_spend_each_token_once(engine: Engine,
                                                                   twin: Engine) -> None:
    clock = Clock()  # no time passes: no refill, so exactly ``count`` takes may succeed
    limiters = [SharedBuckets(engine, clock), SharedBuckets(twin, clock)]
    allowed: list[bool] = []
    lock = threading.Lock()

    def take(limiter: SharedBuckets) -> None:
        for _ in range(15):
            got = limiter.take("create", "flood", 40, 60.0) is None
            with lock:
                allowed.append(got)

    threads = [threading.Thread(target=take, args=(limiters[n % 2],)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 120
    assert sum(allowed) == 40


def test_buckets_full_again_are_swept(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratelimits, "_SWEEP_EVERY", 10)
    clock = Clock()
    buckets = SharedBuckets(engine, clock)
    for n in range(9):
        buckets.take("create", f"old-{n}", 5, 60.0, longest_s=60.0)
    clock.now += 61.0  # every old bucket is full again: as good as absent
    buckets.take("create", "new", 5, 60.0, longest_s=60.0)  # the tenth take sweeps
    with buckets.engine.connect() as conn:
        clients = conn.execute(text("SELECT client FROM rate_buckets")).scalars().all()
    assert clients == ["new"]


def test_on_sqlite_a_take_writes_nothing_to_the_ledger_s_file(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    store = EventStore(engine)
    store.outside_writes()
    buckets = SharedBuckets(engine, Clock())
    for n in range(5):
        buckets.take("create", f"client-{n}", 3, 60.0)
    # another connection's commit to the ledger's file would make its processes read every
    # cached match again; the buckets' own file takes the writes
    before = store.outside_writes()
    buckets.take("create", "client-5", 3, 60.0)
    assert store.outside_writes() == before
    assert buckets.engine.url.database != engine.url.database
    with engine.connect() as conn:
        tables = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))
        assert "rate_buckets" not in tables.scalars().all()
    assert (tmp_path / "ledger-ratelimits.db").exists()
    engine.dispose()


def test_workers_starting_at_once_all_find_the_table(engine: Engine, twin: Engine) -> None:
    # a server's workers each make their buckets as they start, at the same moment: none may
    # fail because another created the table between its look and its CREATE
    url = twin.url.render_as_string(hide_password=False)
    schema = None
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            schema = conn.execute(text("SHOW search_path")).scalar_one().strip('"')
    engines = [open_engine(url, pg_schema=schema, create=False) for _ in range(8)]
    start = threading.Barrier(len(engines))
    failures: list[BaseException] = []

    def make(other: Engine) -> None:
        start.wait()
        try:
            SharedBuckets(other, Clock()).take("create", "a", 100, 60.0)
        except BaseException as e:  # noqa: BLE001  collected for the assertion below
            failures.append(e)

    threads = [threading.Thread(target=make, args=(other,)) for other in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for other in engines:
        other.dispose()
    assert failures == []

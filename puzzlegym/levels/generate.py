"""``puzzlegym levels generate``: a split's training levels generated into the level cache
(:class:`puzzlegym.game.levelcache.LevelCache`) in worker processes, so training starts warm."""

from __future__ import annotations

MAX_WARM_LEVELS = 1_000_000
MAX_WORKERS = 64
CACHE_FILE_BYTES = 4096  # what one cached level takes on disk (one block)


def _warm_chunk(
    env_id: str, num_levels: int, start_level: int, indices: list[int], root: str
) -> dict:
    from puzzlegym.game.levelcache import LevelCache
    from puzzlegym.game.registry import parse_env_id
    from puzzlegym.game.splits import Split, TrainingLevels

    game, tier = parse_env_id(env_id)
    cache = LevelCache(root)
    training = TrainingLevels(game, tier, Split(num_levels, start_level), cache=cache)
    for i in indices:
        training.entry(i)
    return {
        "levels": len(indices),
        "generated": training.generated,
        "read": cache.hits,
        "corrupted": cache.corrupted,
    }


def warm_cache(
    env_id: str, num_levels: int, start_level: int = 0, workers: int = 1, log=None
) -> dict:
    """Generate training levels ``0 .. num_levels - 1`` of ``env_id``'s tier under the split
    into the level cache (``PUZZLEGYM_CACHE``), in ``workers`` processes, so training reads
    them from disk (``puzzlegym levels generate``). Returns counts and the rate."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from puzzlegym.base.errors import ConfigError
    from puzzlegym.base.fields import check_count
    from puzzlegym.base.processes import worker_context
    from puzzlegym.game.levelcache import LevelCache
    from puzzlegym.game.registry import parse_env_id
    from puzzlegym.game.splits import check_split

    parse_env_id(env_id)
    split = check_split("generated", num_levels, start_level)
    assert split is not None  # levels="generated" always has a split
    check_count(
        split.num_levels, "num_levels", 1, MAX_WARM_LEVELS, ConfigError, what="levels to generate"
    )
    check_count(workers, "workers", 1, MAX_WORKERS, ConfigError)
    cache = LevelCache.from_env()
    if cache is None:
        raise ConfigError("PUZZLEGYM_CACHE is off: there is no level cache to generate into")
    if split.num_levels * CACHE_FILE_BYTES > cache.max_bytes * 3 // 4:
        raise ConfigError(
            f"num_levels: {split.num_levels} levels take about "
            f"{split.num_levels * CACHE_FILE_BYTES // 2**20} MiB, "
            f"more than the level cache keeps ({cache.max_bytes // 2**20} MiB, 3/4 after pruning); "
            "raise PUZZLEGYM_CACHE_MAX_MB"
        )
    chunks = [list(range(k, split.num_levels, workers)) for k in range(workers)]
    t0 = time.perf_counter()
    totals = {"levels": 0, "generated": 0, "read": 0, "corrupted": 0}
    if workers == 1:
        results = [
            _warm_chunk(env_id, split.num_levels, split.start_level, chunks[0], str(cache.root))
        ]
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=worker_context()) as pool:
            futures = [
                pool.submit(
                    _warm_chunk, env_id, split.num_levels, split.start_level, c, str(cache.root)
                )
                for c in chunks
                if c
            ]
            results = [f.result() for f in futures]
    for r in results:
        for k in totals:
            totals[k] += r[k]
    seconds = time.perf_counter() - t0
    out = {
        "env_id": env_id,
        "num_levels": split.num_levels,
        "start_level": split.start_level,
        **totals,
        "seconds": round(seconds, 3),
        "levels_per_s": round(totals["levels"] / seconds, 2),
        "cache": str(cache.root),
    }
    if log:
        log(
            f"{env_id}: {totals['levels']} training levels ({totals['generated']} generated, "
            f"{totals['read']} already cached) in {seconds:.1f} s under {cache.root}"
        )
    return out

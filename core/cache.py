"""Django's Redis cache, forgiving when Redis is down (issue 16): the cache holds only what can
be recomputed or lost (import progress, Verify reports), so a page never fails for it. A read
answers as a miss, a write is dropped, `add` answers True (as if this caller had the key: one
taking a lock with it computes for itself rather than wait for a lock nobody can hold), each
logged. Paired with short socket timeouts and no redis-py retries (CACHES in config/settings.py),
a cache call on a dead Redis costs a refused connection or at most the socket timeout."""

import functools
import logging

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def _forgiving(answer):
    def wrap(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except RedisError as error:
                logger.warning(
                    "Cache unavailable (%s: %s): %s answered without it.", type(error).__name__, error, method.__name__
                )
                return answer(*args, **kwargs)

        return call

    return wrap


def _default(key, default=None, version=None):
    return default


class ForgivingRedisCache(RedisCache):
    add = _forgiving(lambda *a, **k: True)(RedisCache.add)
    get = _forgiving(_default)(RedisCache.get)
    set = _forgiving(lambda *a, **k: None)(RedisCache.set)
    touch = _forgiving(lambda *a, **k: False)(RedisCache.touch)
    delete = _forgiving(lambda *a, **k: False)(RedisCache.delete)
    get_many = _forgiving(lambda *a, **k: {})(RedisCache.get_many)
    has_key = _forgiving(lambda *a, **k: False)(RedisCache.has_key)
    set_many = _forgiving(lambda data, *a, **k: list(data))(RedisCache.set_many)
    delete_many = _forgiving(lambda *a, **k: None)(RedisCache.delete_many)

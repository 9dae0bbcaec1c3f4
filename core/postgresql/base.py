"""Django's PostgreSQL backend with a health check that costs no round trip while the server
has said nothing.

CONN_HEALTH_CHECKS (config/settings.py) makes Django check a kept connection before each
request's first statement, with `SELECT 1`: one more round trip on every request, a tenth of
an activation's work. A server that ends a connection (restarted, pg_terminate_backend, an idle
timeout) sends a last message before it closes the socket, so the socket turns readable. While
it is not, the connection is taken as usable without asking; when it is, Django's own
`SELECT 1` decides. A server gone without a word (a host lost mid-network) is not noticed here,
nor sooner by `SELECT 1`, which would wait for the same TCP timeout.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        raw = self.connection
        if raw is None or raw.closed or raw.broken:
            return False
        try:
            readable, _, _ = select.select([raw.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable or super().is_usable()

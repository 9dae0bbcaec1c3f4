"""gunicorn's logger with card swipes masked (config/gunicorn.conf.py names it as logger_class).

The access log writes the request's path (%(U)s): an address with a card swipe in it (typed or
swiped into the address bar, a link copied with one) would put the stripe, which holds the
member's name, in the log. The application sends such an address on at once
(core.swipe.SwipeInQueryMiddleware), but gunicorn writes its line for that first request all
the same; this masks it there, and in gunicorn's error log, with core.swipe's own rule."""

from gunicorn.glogging import Logger

from core.swipe import SwipeLogFilter


class SwipeMaskingLogger(Logger):
    def setup(self, cfg) -> None:
        super().setup(cfg)
        for log in (self.access_log, self.error_log):
            if not any(isinstance(f, SwipeLogFilter) for f in log.filters):
                log.addFilter(SwipeLogFilter())

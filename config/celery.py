import os

from celery import Celery
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# The tick lives beside this file (it calls into several apps), not in an app.
app = Celery("promodesk", include=["config.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_finalize.connect
def setup_beat_schedule(sender, **kwargs):
    # One static schedule: the tick finds what is due in the database ("time is the authority").
    sender.conf.beat_schedule = {
        "tick": {"task": "config.tasks.tick", "schedule": float(settings.TICK_SECONDS)},
    }

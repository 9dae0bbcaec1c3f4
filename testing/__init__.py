"""Helpers shared by the integration tests (a real Celery worker, polling)."""

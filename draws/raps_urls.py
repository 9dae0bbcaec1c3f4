"""RAPS sessions: the active-player list upload."""

urlpatterns = []

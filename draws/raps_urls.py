"""RAPS sessions: the active-player list upload."""

from django.urls import path

from draws import raps_views

urlpatterns = [
    path("<int:draw_id>/raps/", raps_views.raps_upload, name="raps_upload"),
    path("raps/sample.csv", raps_views.raps_sample, name="raps_sample"),
]

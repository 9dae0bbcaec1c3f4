from django.urls import include, path

from draws import run_views, views

app_name = "draws"
urlpatterns = [
    path("", views.draw_list, name="list"),
    path("cancel/", views.draws_cancel_many, name="cancel_many"),
    path("<int:draw_id>/", views.draw_detail, name="detail"),
    path("<int:draw_id>/move/", views.draw_move, name="move"),
    path("<int:draw_id>/cancel/", views.draw_cancel, name="cancel"),
    path("<int:draw_id>/standing/refresh/", views.standing_refresh, name="standing_refresh"),
    path("<int:draw_id>/activate/", views.draw_activate, name="activate"),
    path("<int:draw_id>/run/", run_views.run_partial, name="run"),
    path("<int:draw_id>/start/", run_views.start, name="start"),
    path("<int:draw_id>/witness/", run_views.witness, name="witness"),
    path("<int:draw_id>/outcome/", run_views.outcome, name="outcome"),
    path("<int:draw_id>/serial/", run_views.key_serial, name="key_serial"),
    path("<int:draw_id>/end/", run_views.end_short, name="end_short"),
    path("<int:draw_id>/resume/", run_views.resume, name="resume"),
    path("series/<int:series_id>/schedule/", views.series_schedule, name="series_schedule"),
    path("receipts/<int:activation_id>/", views.receipt, name="receipt"),
    path("receipts/<int:activation_id>.pdf", views.receipt_pdf, name="receipt_pdf"),
    # The draw record (export, verify, certificate, winners lists) and RAPS sessions.
    path("", include("draws.record_urls")),
    path("", include("draws.raps_urls")),
    # Draw night: the stage screen and tonight's draws.
    path("", include("draws.stage_urls")),
]

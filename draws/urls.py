from django.urls import include, path

from draws import views

app_name = "draws"
urlpatterns = [
    path("", views.draw_list, name="list"),
    path("<int:draw_id>/", views.draw_detail, name="detail"),
    path("<int:draw_id>/move/", views.draw_move, name="move"),
    path("<int:draw_id>/cancel/", views.draw_cancel, name="cancel"),
    path("<int:draw_id>/standing/refresh/", views.standing_refresh, name="standing_refresh"),
    path("<int:draw_id>/activate/", views.draw_activate, name="activate"),
    path("series/<int:series_id>/schedule/", views.series_schedule, name="series_schedule"),
    path("receipts/<int:activation_id>/", views.receipt, name="receipt"),
    path("receipts/<int:activation_id>.pdf", views.receipt_pdf, name="receipt_pdf"),
    # The draw record (export, verify, certificate, winners lists) and RAPS sessions.
    path("", include("draws.record_urls")),
    path("", include("draws.raps_urls")),
]

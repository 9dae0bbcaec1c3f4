"""The draw record: exports, verification, certificate, winners lists."""

from django.urls import path

from draws import record_views

urlpatterns = [
    path("<int:draw_id>/record/", record_views.record, name="record"),
    path("<int:draw_id>/record/record.json", record_views.record_json, name="record_json"),
    path("<int:draw_id>/record/entries.csv", record_views.record_entries, name="record_entries"),
    path("<int:draw_id>/record/verify/", record_views.record_verify, name="record_verify"),
    path("<int:draw_id>/certificate.pdf", record_views.record_certificate, name="certificate"),
    path("promotions/<int:promotion_id>/winners/", record_views.promotion_winners, name="promotion_winners"),
    path("promotions/<int:promotion_id>/winners.csv", record_views.promotion_winners_csv, name="promotion_winners_csv"),
]

from django.urls import path

from records import views

app_name = "records"

urlpatterns = [
    path("promotions/<int:promotion_id>/packs/", views.pack_request, name="pack_request"),
    path("packs/<int:pack_id>/progress/", views.pack_progress, name="pack_progress"),
    path("packs/<int:pack_id>/zip/", views.pack_zip, name="pack_zip"),
    path("packs/<int:pack_id>/pdf/", views.pack_pdf, name="pack_pdf"),
]

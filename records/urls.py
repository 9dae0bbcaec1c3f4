from django.urls import path

from records import member_record_views, views

app_name = "records"

urlpatterns = [
    path("promotions/<int:promotion_id>/packs/", views.pack_request, name="pack_request"),
    path("packs/<int:pack_id>/progress/", views.pack_progress, name="pack_progress"),
    path("packs/<int:pack_id>/zip/", views.pack_zip, name="pack_zip"),
    path("packs/<int:pack_id>/pdf/", views.pack_pdf, name="pack_pdf"),
    # A member's own record (POPIA s23): the desk's confirmation, then the PDF.
    path("members/<int:member_id>/own-record/", member_record_views.member_record, name="member_record"),
]

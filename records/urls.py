from django.urls import path

from records import member_record_views

app_name = "records"

urlpatterns: list = [
    # A member's own record (POPIA s23): the desk's confirmation, then the PDF.
    path("members/<int:member_id>/own-record/", member_record_views.member_record, name="member_record"),
]

from django.urls import path

from core import audit_views

urlpatterns = [
    path("audit/", audit_views.audit, name="audit"),
    path("audit/events.csv", audit_views.audit_csv, name="audit_csv"),
]

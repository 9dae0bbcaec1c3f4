from django.urls import path

from core import audit_views, health_views, throttle_views

urlpatterns = [
    path("healthz", health_views.healthz, name="healthz"),  # no sign-in: healthchecks (core.health)
    path("audit/", audit_views.audit, name="audit"),
    path("audit/events.csv", audit_views.audit_csv, name="audit_csv"),
    path("accounts/pauses/", throttle_views.sign_in_pauses, name="sign_in_pauses"),
    path("accounts/pauses/unlock/", throttle_views.sign_in_unlock, name="sign_in_unlock"),
]

from django.urls import path

from core import views

urlpatterns = [
    path("audit/", views.audit, name="audit"),
]

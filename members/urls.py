from django.urls import path

from members import views

app_name = "members"
urlpatterns = [
    path("", views.lookup, name="lookup"),
    path("sign-up/", views.sign_up, name="sign_up"),
    path("<int:member_id>/", views.member_detail, name="detail"),
    path("exclusions/", views.exclusions, name="exclusions"),
    path("exclusions/new/", views.exclusion_new, name="exclusion_new"),
    path("exclusions/<int:exclusion_id>/end/", views.exclusion_end, name="exclusion_end"),
    path("imports/", views.imports, name="imports"),
    path("imports/<int:job_id>/", views.import_detail, name="import_detail"),
    path("imports/<int:job_id>/progress/", views.import_progress, name="import_progress"),
    path("imports/<int:job_id>/errors.csv", views.import_errors_csv, name="import_errors_csv"),
]

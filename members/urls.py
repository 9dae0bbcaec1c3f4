from django.urls import path

from members import views

app_name = "members"
urlpatterns = [
    path("", views.lookup, name="lookup"),
    path("sign-up/", views.sign_up, name="sign_up"),
    path("list/", views.member_list, name="list"),
    path("<int:member_id>/", views.member_detail, name="detail"),
    path("<int:member_id>/edit/", views.member_edit, name="edit"),
    path("<int:member_id>/history/", views.member_history, name="history"),
    path("<int:member_id>/welcome-slip/", views.welcome_slip, name="welcome_slip"),
    path("exclusions/", views.exclusions, name="exclusions"),
    path("exclusions/new/", views.exclusion_new, name="exclusion_new"),
    path("exclusions/<int:exclusion_id>/end/", views.exclusion_end, name="exclusion_end"),
    path("imports/", views.imports, name="imports"),
    path("imports/sample-<str:kind>.csv", views.import_sample, name="import_sample"),
    path("imports/<int:job_id>/", views.import_detail, name="import_detail"),
    path("imports/<int:job_id>/progress/", views.import_progress, name="import_progress"),
    path("imports/<int:job_id>/errors.csv", views.import_errors_csv, name="import_errors_csv"),
]

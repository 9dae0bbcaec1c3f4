from django.urls import path

from proxies import views

app_name = "proxies"
urlpatterns = [
    path("members/<int:member_id>/nominate/", views.member_nominate, name="member_nominate"),
    path("members/<int:member_id>/nominate/nominee/", views.nominee_lookup, name="nominee_lookup"),
    path("members/<int:member_id>/nominate/sign/", views.nominate_sign, name="nominate_sign"),
    path("members/<int:member_id>/nominate/form.pdf", views.nominate_form_pdf, name="nominate_form_pdf"),
    path("members/<int:member_id>/decline/", views.member_decline, name="member_decline"),
    path("nominations/<int:nomination_id>/", views.nomination_detail, name="nomination"),
    path("nominations/<int:nomination_id>/form.pdf", views.nomination_pdf, name="nomination_pdf"),
    path("nominations/<int:nomination_id>/revoke/", views.nomination_revoke, name="nomination_revoke"),
    path("declines/<int:registration_id>/revoke/", views.decline_revoke, name="decline_revoke"),
    path("draws/<int:draw_id>/", views.draw_register, name="draw_register"),
]

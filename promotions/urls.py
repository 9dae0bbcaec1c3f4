from django.urls import path

from promotions import views

app_name = "promotions"
urlpatterns = [
    path("", views.promotion_list, name="list"),
    path("new/", views.promotion_new, name="new"),
    path("<int:promotion_id>/", views.promotion_detail, name="detail"),
    path("<int:promotion_id>/edit/", views.promotion_edit, name="edit"),
    path("<int:promotion_id>/series/new/", views.series_new, name="series_new"),
    path("series/<int:series_id>/edit/", views.series_edit, name="series_edit"),
]

from django.urls import path

from promotions import views

app_name = "promotions"
urlpatterns = [
    path("", views.promotion_list, name="list"),
]

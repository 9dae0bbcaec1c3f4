from django.urls import path

from draws import views

app_name = "draws"
urlpatterns = [
    path("", views.draw_list, name="list"),
]

from django.urls import path

from prizes import progressive_views

app_name = "prizes"
urlpatterns = [
    path("progressives/", progressive_views.progressive_list, name="progressives"),
    path("progressives/<int:progressive_id>/", progressive_views.progressive_detail, name="progressive"),
]

from django.urls import path

from draws import stage_views

urlpatterns = [
    path("tonight/", stage_views.tonight, name="tonight"),
    path("<int:draw_id>/stage/", stage_views.stage, name="stage"),
    path("<int:draw_id>/stage/state/", stage_views.stage_state_partial, name="stage_state"),
]

from django.urls import path

from prizes import conduct_views, letter_pdf_views, letter_views, progressive_views, views

app_name = "prizes"
urlpatterns = [
    path("series/<int:series_id>/boards/", views.series_boards, name="series_boards"),
    path("boards/<int:board_id>/", views.board_detail, name="board"),
    path("boards/<int:board_id>/add/", views.board_slot_add, name="board_slot_add"),
    path("boards/<int:board_id>/slot/", views.board_slot_change, name="board_slot_change"),
    path("draws/<int:draw_id>/", views.draw_record, name="draw"),
    path("draws/<int:draw_id>/game/event/", conduct_views.game_event, name="game_event"),
    path("draws/<int:draw_id>/game/finish/", conduct_views.game_finish, name="game_finish"),
    path("draws/<int:draw_id>/wild-card-bin/", conduct_views.wild_card_bin, name="wild_card_bin"),
    path("draws/<int:draw_id>/vault/", progressive_views.vault_prizes, name="vault"),
    path("lines/<int:line_id>/correct/", views.line_reverse, name="reverse"),
    path("lines/<int:line_id>/paid-at-device/", letter_views.device_payout, name="device_payout"),
    path("picks/<int:pick_id>/letter/", letter_views.letter_issue, name="letter_issue"),
    path("letters/<int:letter_id>/", letter_views.letter_detail, name="letter"),
    path("letters/<int:letter_id>/void/", letter_views.letter_void, name="letter_void"),
    path("letters/<int:letter_id>/letter.pdf", letter_pdf_views.letter_pdf_file, name="letter_pdf"),
    path("letters/<int:letter_id>/pdf-state/", letter_pdf_views.letter_pdf_state, name="letter_pdf_state"),
    path("letters/<int:letter_id>/render/", letter_pdf_views.letter_render_again, name="letter_render"),
    path("draws/<int:draw_id>/letters/progress/", letter_pdf_views.draw_letters_progress, name="draw_letters_progress"),
    path("draws/<int:draw_id>/letters/render/", letter_pdf_views.draw_letters_render, name="draw_letters_render"),
    path("record/", views.record, name="record"),
    path("record.csv", views.record_csv, name="record_csv"),
    path("progressives/", progressive_views.progressive_list, name="progressives"),
    path("progressives/<int:progressive_id>/", progressive_views.progressive_detail, name="progressive"),
    path("progressives/<int:progressive_id>/reset/", progressive_views.progressive_reset, name="progressive_reset"),
]

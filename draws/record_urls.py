"""The draw record: exports, verification, certificate, winners lists."""

urlpatterns = []

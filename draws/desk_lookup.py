"""The header lookup finds a ticket receipt by its number ("12-00000001", printed and in the
receipt's QR code): the receipt for those who may see it, else the member it belongs to."""

import re

from django.urls import reverse

from draws.models import Activation
from members.lookup_targets import register

RECEIPT_NUMBER = re.compile(r"^\d+-\d{8}$")


@register
def receipt(query: str, user) -> str | None:
    if not RECEIPT_NUMBER.match(query):
        return None
    activation = Activation.objects.filter(receipt_number=query).only("pk", "member_id").first()
    if activation is None:
        return None
    if user.has_perm("draws.view_activation"):
        return reverse("draws:receipt", args=[activation.pk])
    if user.has_perm("members.view_member"):
        return reverse("members:detail", args=[activation.member_id])
    return None

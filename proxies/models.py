"""Proxy nominations and the decline-to-be-present register.

A participant may nominate someone to stand in for them at one draw (Fast Lane rules 109-113,
Golden Horse rules 12-13, Royal Flush rules 42-46): both present ID and sign the form, a nominee
represents one participant per draw, may not take part in that draw, and never receives the
prize. A participant may instead register, in person, that they decline to be present
(Consumer Protection Act reg. 11(3); Emnotweni rules 14-15, Royal Flush rules 15-16): if drawn
they still win. Nothing is deleted: revoking keeps the row, who revoked it, when and why.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from draws.models import Draw
from members.identity import IdType
from members.models import Member


class LiveQuerySet(models.QuerySet):
    def live(self) -> "LiveQuerySet":
        """Not revoked (Revocable.is_live says the same of one row)."""
        return self.filter(revoked_at__isnull=True)


class NominationQuerySet(LiveQuerySet):
    def standing_in(self, *, id_number: str, member: Member | None = None) -> "NominationQuerySet":
        """The live nominations naming this person as the proxy: by ID number, or by card when
        they are a member (ProxyNomination.names_as_proxy says the same of one nomination)."""
        named = Q(nominee_id_number=id_number)
        if member is not None:
            named |= Q(nominee_member=member)
        return self.live().filter(named)

    def proxy_of_another(self, member: Member) -> "NominationQuerySet":
        """The live nominations in which `member` stands in for another participant: the one
        meaning of "a live proxy" (draws.registers asks it through proxies.registers)."""
        return self.standing_in(id_number=member.id_number, member=member).exclude(participant=member)


class Revocable(models.Model):
    registered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    registered_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    revoke_reason = models.TextField(blank=True)

    objects = LiveQuerySet.as_manager()

    class Meta:
        abstract = True

    @property
    def is_live(self) -> bool:
        return self.revoked_at is None


class ProxyNomination(Revocable):
    """One participant's nominee for one draw. Nominations made together for several draws of
    one promotional day share a `batch` (and one printed form)."""

    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="nominations")
    participant = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="nominations_made")
    nominee_name = models.CharField(max_length=121)
    nominee_id_type = models.CharField(max_length=20, choices=IdType.choices)
    nominee_id_number = models.CharField(max_length=20, help_text="Normalised, as members' are.")
    nominee_phone = models.CharField(max_length=20, blank=True)
    nominee_member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="nominations_received"
    )
    # What the clerk saw: both ID documents and the signed form (the service refuses without them).
    participant_id_seen = models.BooleanField(default=False)
    nominee_id_seen = models.BooleanField(default=False)
    form_signed = models.BooleanField(default=False)
    batch = models.UUIDField(db_index=True)

    objects = NominationQuerySet.as_manager()

    class Meta:
        ordering = ["draw", "registered_at"]
        constraints = [
            # One live nomination per participant per draw, and a nominee represents one
            # participant per draw: two desks cannot both register them (partial unique indexes).
            models.UniqueConstraint(
                fields=["draw", "participant"],
                condition=Q(revoked_at__isnull=True),
                name="one_live_nominee_per_participant",
            ),
            models.UniqueConstraint(
                fields=["draw", "nominee_id_number"],
                condition=Q(revoked_at__isnull=True),
                name="nominee_represents_one_participant_per_draw",
            ),
            models.CheckConstraint(
                condition=Q(participant_id_seen=True, nominee_id_seen=True, form_signed=True),
                name="nomination_ids_seen_and_form_signed",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.nominee_name} for {self.participant} at {self.draw}"

    def names_as_proxy(self, *, id_number: str, member: Member | None = None) -> bool:
        """Whether this live nomination names this person as the proxy (NominationQuerySet.standing_in)."""
        return self.is_live and (
            self.nominee_id_number == id_number or (member is not None and self.nominee_member_id == member.pk)
        )

    def is_proxy_of_another(self, member: Member) -> bool:
        """Whether `member` stands in for another participant by this nomination
        (NominationQuerySet.proxy_of_another)."""
        return self.names_as_proxy(id_number=member.id_number, member=member) and self.participant_id != member.pk

    @property
    def masked_nominee_id(self) -> str:
        return "*" * max(len(self.nominee_id_number) - 4, 0) + self.nominee_id_number[-4:]


class DeclineRegistration(Revocable):
    """A participant's own, in-person registration that they decline to be present at one draw:
    if drawn, they are still a winner and the casino contacts them. There is no field for
    anyone acting on their behalf: the register is personal."""

    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="declines")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="declines")
    id_seen = models.BooleanField(default=False)
    batch = models.UUIDField(db_index=True)

    class Meta:
        ordering = ["draw", "registered_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["draw", "member"], condition=Q(revoked_at__isnull=True), name="one_live_decline_per_member"
            ),
            models.CheckConstraint(condition=Q(id_seen=True), name="decline_id_seen"),
        ]

    def __str__(self) -> str:
        return f"{self.member} declines to be present at {self.draw}"

import datetime as dt

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone
from stdnum import luhn

from members.identity import IdType
from members.models import Exclusion, ExclusionKind, Member, PointsEntry, Property, Tier


def sa_id_for(born: dt.date, sequence: int = 5000) -> str:
    body = f"{born:%y%m%d}{sequence % 10000:04d}08"
    return body + luhn.calc_check_digit(body)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"staff{n}")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class PropertyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Property
        django_get_or_create = ["code"]

    code = "GRC"
    name = "Gold Reef City"


class TierFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tier
        django_get_or_create = ["code"]

    code = "TEN"
    name = "Ten"
    rank = 1


class MemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Member

    card_number = factory.Sequence(lambda n: f"{900000000 + n}")
    first_name = "Thandi"
    last_name = factory.Sequence(lambda n: f"Member{n}")
    date_of_birth = dt.date(1980, 1, 1)
    id_type = IdType.SA_ID
    id_number = factory.LazyAttributeSequence(lambda m, n: sa_id_for(m.date_of_birth, n))
    tier = factory.SubFactory(TierFactory)
    home_property = factory.SubFactory(PropertyFactory)


class ExclusionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Exclusion

    id_type = IdType.SA_ID
    id_number = factory.LazyFunction(lambda: sa_id_for(dt.date(1975, 5, 5)))
    full_name = "Excluded Person"
    kind = ExclusionKind.SELF_EXCLUSION
    reason = "Asked to be excluded."
    starts_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=30))
    recorded_by = factory.SubFactory(UserFactory)


class PointsEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PointsEntry

    member = factory.SubFactory(MemberFactory)
    property = factory.SubFactory(PropertyFactory)
    earned_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(hours=1))
    points = 100
    reference = factory.Sequence(lambda n: f"REF{n}")

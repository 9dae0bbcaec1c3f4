from django.core.management.base import BaseCommand, CommandError

from core.audit import Actor
from core.errors import DomainError
from draws.models import DeviceKind
from draws.services import device_token_create
from members.models import Property


class Command(BaseCommand):
    help = "Create an API token for an eHost kiosk or the app gateway of one property; prints the token once."

    def add_arguments(self, parser):
        parser.add_argument("--property", required=True, help="Property code, e.g. GRC")
        parser.add_argument("--name", required=True, help="Device name, e.g. ehost-01")
        parser.add_argument("--kind", default="ehost", choices=DeviceKind.values, help="ehost (default), app or feed")

    def handle(self, *args, property: str, name: str, kind: str, **options):
        prop = Property.objects.filter(code__iexact=property).first()
        if prop is None:
            codes = ", ".join(Property.objects.values_list("code", flat=True))
            raise CommandError(f"Unknown property {property!r} (one of {codes}).")
        try:
            _, token = device_token_create(actor=Actor.system("create_device_token"), prop=prop, name=name, kind=kind)
        except DomainError as error:
            raise CommandError(error.message) from None
        self.stdout.write(token)

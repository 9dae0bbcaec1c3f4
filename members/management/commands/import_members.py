from members.management.commands._import import ImportCommand


class Command(ImportCommand):
    help = "Import members from a CSV file (all or nothing)."
    kind = "members"

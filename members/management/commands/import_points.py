from members.management.commands._import import ImportCommand


class Command(ImportCommand):
    help = "Import points from a CSV file (all or nothing; references already imported are skipped)."
    kind = "points"

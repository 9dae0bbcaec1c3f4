from django.urls import reverse

# (label, url name, permission). A link shows only to those who hold its permission. (Sign-in
# pauses sit in the account menu and on the manager's start page: the row must fit 1024 px.)
NAVIGATION = [
    ("Member lookup", "members:lookup", "members.view_member"),
    ("Members", "members:list", "members.view_member"),
    ("Sign up a guest", "members:sign_up", "members.add_member"),
    ("Exclusions", "members:exclusions", "members.view_exclusion"),
    ("Promotions", "promotions:list", "promotions.view_promotion"),
    ("Draws", "draws:list", "draws.view_draw"),
    ("Tonight", "draws:tonight", "draws.view_stage"),
    ("Cash desk", "prizes:cash_desk", "prizes.add_payout"),
    # The letters' reports (issue 15): one link, to the first page of the three the user may open
    # (the letters report links the other two); the row must fit 1024 px for every role.
    ("Prizes", "prizes:letter_report", "prizes.view_prizeline"),
    ("Prizes", "prizes:uncollected", "prizes.add_prizeletter"),
    ("Prizes", "prizes:payout_summary", "prizes.add_payout"),
    ("Imports", "members:imports", "members.view_importjob"),
    ("Audit log", "audit", "core.view_auditevent"),
]


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items, labels = [], set()
    for label, name, permission in NAVIGATION:
        if label not in labels and user.has_perm(permission):  # a label's first page the user may open
            labels.add(label)
            items.append({"label": label, "url": reverse(name)})
    # One active link: the longest address the page is under (/members/ is the lookup's, but a
    # page under /members/imports/ belongs to Imports alone).
    under = [item["url"] for item in items if request.path.startswith(item["url"])]
    current = max(under, key=len, default=None)
    for item in items:
        item["active"] = item["url"] == current
    return {"nav_items": items}

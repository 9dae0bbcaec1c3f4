from django.contrib.auth.decorators import permission_required
from django.shortcuts import render

from promotions.models import Promotion


@permission_required("promotions.view_promotion", raise_exception=True)
def promotion_list(request):
    promotions = Promotion.objects.prefetch_related("properties").order_by("-starts_on")
    return render(request, "promotions/list.html", {"promotions": promotions})

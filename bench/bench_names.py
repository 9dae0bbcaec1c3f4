"""Name lists for the benchmark fill: South African first names and surnames, commonest first.

Kept as comma-separated text (not one list item per line) so the file stays short. Names are
plain ASCII letters, spaces and hyphens only: no digits, so a partial-name search at the desk
meets the same kind of text it meets in production.
"""

import random

FIRST_NAMES_TEXT = """
Thabo, Sipho, Lerato, Nomsa, Bongani, Thandeka, Sibusiso, Lindiwe, Themba, Zanele, Mpho, Naledi,
Johan, Pieter, Andile, Ayanda, Kagiso, Palesa, Karabo, Tshepo, Busisiwe, Nokuthula, Refilwe, Lwazi,
Anele, Siyabonga, Nkosinathi, Thulani, Mandla, Sizwe, Lungile, Nompumelelo, Zodwa, Mthunzi, Sandile,
Xolani, Vusi, Jabulani, Sifiso, Mxolisi, Lucky, Blessing, Precious, Gift, Patience, Sello, Tumelo,
Kabelo, Katlego, Boitumelo, Tebogo, Lesego, Reneilwe, Keabetswe, Oratile, Omphile, Dimakatso,
Mmabatho, Puleng, Lebohang, Teboho, Mpumelelo, Nandi, Khanyisile, Zinhle, Siphesihle, Nosipho,
Ntombi, Thembeka, Hlengiwe, Phumzile, Nonhlanhla, Lungelo, Simphiwe, Mzwandile, Luthando, Unathi,
Zukisa, Siphokazi, Ntokozo, Musa, Njabulo, Sabelo, Nhlanhla, Bonginkosi, Mfundo, Khaya, Lubabalo,
Akhona, Asanda, Babalwa, Yonela, Vuyo, Vuyani, Wandile, Mlungisi, Mduduzi, Hlompho, Rethabile, Neo,
Kamogelo, Tshegofatso, Masego, Obakeng, Itumeleng, Gaone, Rorisang, Bokang, Tsietsi, Motlatsi,
Sechaba, Nthabiseng, Mamello, Matshidiso, Tiisetso, Rendani, Tshilidzi, Mashudu, Ndivhuwo,
Fulufhelo, Tsakani, Nyiko, Hlayisani, Ntsako, Riaan, Charlene, Elsabe, Hendrik, Marietjie, Kobus,
Willem, Jacobus, Gert, Francois, Hennie, Andre, Stefan, Werner, Annelie, Sonja, Elmarie, Liesl,
Anja, Ronel, Chantelle, Bianca, Jaco, Ruan, Wian, Divan, Dewald, Christo, Deon, John, David,
Michael, Peter, Sarah, Jennifer, Nicole, Jessica, Candice, Shaun, Craig, Bradley, Wayne, Kevin,
Warren, Gareth, Lauren, Megan, Tracey, Michelle, Graham, Nadia, Ashley, Clint, Jerome, Natasha,
Shanelle, Lee-Ann, Chadwin, Keenan, Marlon, Fatima, Yusuf, Mogamat, Abdul, Ismail, Zainab, Aisha,
Rashied, Shireen, Nazeem, Tasneem, Riyaad, Priya, Rajesh, Ashwin, Kavitha, Anusha, Sanjay, Pravin,
Dhiren, Nishal, Kreshan, Yashika, Shanti, Vishnu, Devan, Bheki, Dineo, Mosa, Tumi, Lebo
"""

SURNAMES_TEXT = """
Dlamini, Nkosi, Ndlovu, Khumalo, Sithole, Mahlangu, Mokoena, Mkhize, Mthembu, Zulu, Naidoo,
Ngcobo, Buthelezi, Mthethwa, Shabalala, Nxumalo, Mazibuko, Ngwenya, Hadebe, Zungu, Cele, Gumede,
Mabaso, Maseko, Radebe, Molefe, Botha, van der Merwe, Pretorius, Coetzee, Venter, Govender, Pillay,
Moodley, Petersen, Jacobs, Fourie, Nel, Joubert, Smit, Baloyi, Mathebula, Chauke, Williams, Adams,
Steyn, Kruger, Nkuna, Maluleke, Mnisi, Hlongwane, Ntuli, Zwane, Msimango, Mhlongo, Mbatha, Zondi,
Majola, Dube, Masondo, Khoza, Mdlalose, Mkhabela, Shongwe, Sibiya, Kubheka, Nhlapo, Vilakazi,
Tshabalala, Motaung, Mofokeng, Modise, Moloi, Mohapi, Letsoalo, Mashaba, Maake, Masilela, Skosana,
Mtshali, Mnguni, Mhlanga, Msomi, Ndaba, Ndebele, Nene, Phiri, Banda, Mwale, Tembo, Moyo, Ncube,
Sibanda, Nyathi, Mpofu, Makhubela, Makhanya, Magagula, Mavuso, Matsebula, Dludlu, Simelane, Gama,
Mabuza, Mashele, Ngobeni, Hlungwani, Khosa, Mabunda, Shikwambana, Rikhotso, Mathonsi, Nkwinika,
Maswanganyi, Mudau, Netshitenzhe, Ramovha, Nemavhola, Tshivhase, Mulaudzi, Rambau, Mphephu, Ravele,
Sikhwari, Makhado, Munyai, Nemukula, Ramabulana, Magoro, Mphahlele, Sekhukhune, Lekganyane, Mogale,
Mokwena, Makgoba, Ledwaba, Maponya, Kekana, Mashiane, Masemola, Moloto, Mabena, Mahlaba, Nkadimeng,
Phasha, Sebola, Thobejane, Seopa, Mashigo, Modiba, Mojapelo, Kgomo, Kgosana, Tau, Tlou, Phala,
Pitso, Motsepe, Mothibi, Motloung, Mokhele, Lekhanya, Mokoatle, Ramokgopa, Setshedi, Sekwati,
Monareng, Moagi, Mothupi, Seleka, Segopolo, Diale, Makua, Mothapo, Mokone, Moremi, Sebego, Kgosi,
Mosia, Lebona, Motsoeneng, Tsotetsi, Mokgethi, Molapo, Leeuw, Rapoo, Matlala, Masilo, Mabote,
Mbeki, Mandela, Sisulu, Tambo, Qwabe, Mqhayi, Makeba, Nqakula, Mgijima, Ntshona, Gqola, Mkhonto,
Nombembe, Mlambo, Mabandla, Nkwinti, Nxesi, Ntshingila, Ngqula, Sonjica, Madikizela, Ngcuka,
Mthimkhulu, Ngubane, Mzimela, Mbhele, Ntshangase, Mncube, Msibi, Mlotshwa, Dladla, Bhengu, Sokhela,
Nzimande, Khanyile, Madlala, Mngadi, Mchunu, Mkhwanazi, Masango, Gwala, Shezi, Zuma, Luthuli,
Mbambo, Mathenjwa, Xaba, Ndimande, Mseleku, Msweli, Ngema, Biyela, Zikalala, Mabuyakhulu, Mnyandu,
Ntombela, Kunene, Maphumulo, Chiliza, Dlomo, Hlela, Mvelase, Khathide, Hlophe, Hlatshwayo, Jali,
Jele, Jili, Jobe, Khambule, Khuzwayo, Khwela, Langa, Lembede, Lukhele, Madonsela, Magubane, Magwaza,
Mahaye, Malinga, Manana, Manqele, Manzini, Maphalala, Mashinini, Masina, Masuku, Mavundla, Meyiwa,
du Plessis, du Toit, le Roux, van Wyk, van Zyl, Swanepoel, Erasmus, Louw, Olivier, Vermeulen,
Badenhorst, Bezuidenhout, Potgieter, Viljoen, Marais, Grobler, Lombard, Meyer, Rossouw, Visser,
Cloete, de Villiers, de Klerk, de Beer, de Wet, Oosthuizen, Engelbrecht, Jansen van Rensburg,
Hattingh, Strydom, Labuschagne, Nieuwoudt, Kotze, Terblanche, Human, Burger, Snyman, Roux, Mostert,
Wessels, Schoeman, Scholtz, Smuts, Brink, Conradie, Bosman, Greyling, Bester, Barnard, Kriel,
Liebenberg, Malan, Muller, Naude, Prinsloo, Pienaar, Serfontein, Stander, Theron, Uys, van Niekerk,
van Heerden, van Rooyen, van Staden, van den Berg, van Tonder, Vorster, Wiese, Zietsman, Ferreira,
Geldenhuys, Gouws, Jordaan, Kleynhans, Lategan, Maritz, Opperman, Rademeyer, Slabbert, Steenkamp,
Strauss, Jooste, Cronje, Claassen, Blignaut, Beukes, Basson, Booysen, Abrahams, Adonis, Africa,
Arendse, Carelse, Cupido, Damons, Daniels, Davids, Fortuin, Hendricks, Isaacs, Jantjies, Jephtha,
Josephs, Julies, Klaasen, Lottering, Marthinus, Matthee, Oktober, Pieterse, Plaatjies, Samuels,
Solomons, September, Stuurman, Swartz, Titus, Witbooi, Esau, Fredericks, Ebrahim, Essop, Kader,
Moosa, Omar, Salie, Hassan, Mohamed, Dollie, Gamieldien, Kamalie, Majiet, Toefy, Reddy, Chetty,
Padayachee, Maharaj, Singh, Naicker, Perumal, Ramsamy, Subramoney, Pather, Moonsamy, Munsamy,
Sewpersad, Ramlall, Rampersad, Bhana, Patel, Desai, Dada, Kara, Haffejee, Bhamjee, Hansraj,
Sooklal, Ramdass, Mahabeer, Nair, Rajah, Sookdeo, Lutchman, Appalsamy, Gounden, Thaver, Smith,
Brown, Jones, Taylor, Johnson, Wilson, Evans, Thomas, Roberts, Walker, Wright, Robinson, Thompson,
White, Hughes, Edwards, Green, Hall, Wood, Harris, Lewis, Martin, Jackson, Clarke, Turner, Hill,
Scott, Cooper, Morris, Ward, Moore, King, Watson, Baker, Harrison, Morgan, Young, Allen, Mitchell,
James, Anderson, Phillips, Lee, Bell, Parker, Davis, Miller, Campbell, Stewart, Murray, Kelly,
Reid, Gordon, Hunter, Fraser, Kennedy, Shaw, Mills, Marshall, Bennett, Russell, Grant, Duncan,
Paterson, Henderson, Ross, Ferguson, Wallace, Hamilton, Simpson, Gibson, Knight, Palmer, Webb,
Holmes, Lloyd, da Silva, Fernandes, Pereira, Rodrigues, Goncalves, Gomes, Martins, dos Santos,
de Sousa, Nunes, Teixeira, Mendes, Correia, Pinto, Caldeira, Freitas, Papadopoulos, Georgiou
"""

# A long tail of rarer surnames built from Nguni and Sotho-Tswana syllables ("Matlane",
# "Sekgobela"): most people share a handful of common surnames, but a million members also
# carry thousands of rare ones, which is what makes a partial-name search return few rows.
_TAIL_HEADS = "Ma, Mo, Ra, Se, Le, Ntshi, Mkha, Ngo, Dla, Tshe, Mathe, Ramo, Mapho, Seko, Kgo, Nhla, Mthi, Sibu"
_TAIL_MIDDLES = "tla, bo, ngo, la, kwe, the, pha, mbe, swa, nyo, tse, kga, hla, lo, zi, ku"
_TAIL_ENDS = "ni, ne, la, ko, ng, le, wa, ba, di, na, so, ma, ye"


def _split(text: str) -> list[str]:
    names = [name.strip() for name in text.replace("\n", " ").split(",")]
    return list(dict.fromkeys(name for name in names if name))


FIRST_NAMES = _split(FIRST_NAMES_TEXT)
SURNAMES = _split(SURNAMES_TEXT)


def tail_surnames(count: int, seed: int) -> list[str]:
    """`count` distinct made-up surnames not already in SURNAMES, deterministic for a seed."""
    rng = random.Random(seed)
    known = {name.lower() for name in SURNAMES}
    combos = [
        head + middle + end
        for head in _split(_TAIL_HEADS)
        for middle in _split(_TAIL_MIDDLES)
        for end in _split(_TAIL_ENDS)
    ]
    rng.shuffle(combos)
    tail = [name for name in dict.fromkeys(combos) if name.lower() not in known]
    return tail[:count]


def zipf_weights(count: int, *, offset: float, exponent: float) -> list[float]:
    """Weights for names listed commonest first: 1 / (rank + offset) ** exponent."""
    return [1.0 / (rank + offset) ** exponent for rank in range(1, count + 1)]

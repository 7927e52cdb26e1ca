"""The simulated world: cities, places, people and their long-term habits (used by ``pfc.simulate``).

Everything is drawn from a ``random.Random`` the caller seeds; nothing here writes files.
Personal data (names, phone numbers, e-mail addresses, ID numbers, exact home and work
addresses) is generated on purpose, so that anonymization can be tested against it.

    >>> import random; p = make_person(random.Random(1), 0); p["city"] in CITIES
    True
"""
from __future__ import annotations

import random

CITIES = {
    "Shanghai": ["Xuhui", "Jing'an", "Pudong", "Changning", "Minhang"],
    "Beijing": ["Chaoyang", "Haidian", "Dongcheng", "Xicheng", "Fengtai"],
    "Hangzhou": ["Xihu", "Shangcheng", "Binjiang", "Gongshu"],
    "Chengdu": ["Jinjiang", "Wuhou", "Qingyang", "Gaoxin"],
    "Guangzhou": ["Tianhe", "Yuexiu", "Haizhu", "Panyu"],
}
STREETS = ["Hongqiao", "Huaihai", "Nanjing", "Century", "Zhongshan", "Renmin", "Jianguo", "Wensan", "Tianfu",
           "Binjiang", "Xinhua", "Dongfeng"]
SURNAMES = ["Zhang", "Wang", "Li", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun"]
GIVEN = ["Wei", "Fang", "Na", "Min", "Jing", "Lei", "Yang", "Jun", "Tao", "Xiu", "Hao", "Ying", "Qiang", "Lan"]
RESTAURANTS = [("Haidilao", "Hotpot", ["beef slices", "shrimp paste", "tofu skin"]),
               ("Chuan Wei Guan", "Sichuan", ["mapo tofu", "kung pao chicken", "boiled fish"]),
               ("Dian Dou De", "Cantonese", ["har gow", "char siu bao", "rice noodle roll"]),
               ("Sushi Ro", "Japanese", ["salmon nigiri", "miso soup", "tuna roll"]),
               ("Wagas", "Western", ["chicken salad", "avocado toast", "pasta"]),
               ("Green Bowl", "Vegetarian", ["quinoa bowl", "veggie wrap", "lentil soup"]),
               ("Lao Xiang Ji", "Fast food", ["braised chicken rice", "egg soup", "fried rice"])]
MALLS = ["IFC Mall", "Joy City", "Raffles City", "Wanda Plaza", "Taikoo Li", "Grand Gateway"]
CINEMAS = ["Wanda Cinema", "CGV Cinemas", "Bona Cinema", "Jinyi Cinema"]
VENUES = ["Mercedes-Benz Arena", "Grand Theatre", "Livehouse 1930", "Olympic Stadium"]
KTVS = ["Partyworld KTV", "Melody KTV"]
MOVIES = ["Ne Zha 2", "Dune: Part Two", "Inside Out 2", "The Wandering Earth 3", "Detective Chinatown 4"]
SHOWS = ["Jay Chou World Tour", "Swan Lake", "Mayday Live", "Stand-up Night"]
PRODUCTS = {"daily goods": ["paper towels", "laundry detergent", "toothpaste", "trash bags"],
            "electronics": ["wireless earbuds", "phone charger", "mechanical keyboard", "smart watch"],
            "clothing": ["running shoes", "down jacket", "cotton t-shirt"],
            "books": ["The Three-Body Problem", "Atomic Habits"], "beauty": ["sunscreen", "face mask"]}
DRINKS = {"coffee": ["Latte", "Americano", "Flat White", "Coconut Latte"], "tea": ["Cheese Grape", "Jasmine Milk Tea"]}
COMBOS = ["Zinger Burger Meal", "Family Bucket", "Breakfast Porridge Set"]
SONGS = {"pop": ["Jay Chou", "Taylor Swift"], "rock": ["Mayday", "Coldplay"], "jazz": ["Norah Jones"],
         "classical": ["Chopin Nocturnes"], "folk": ["Zhao Lei"], "hip-hop": ["GAI"]}
VIDEOS = ["The Bad Kids", "Blossoms Shanghai", "Three-Body", "Street Dance of China"]
TOPICS = ["tech", "finance", "sports", "entertainment", "world", "local"]


def place(name: str, district: str, city: str) -> str:
    """A public place: named, not personal (kept by anonymization)."""
    return f"{name} ({district}, {city})"


def exact_address(rng: random.Random, district: str, city: str) -> str:
    """A residence or office: personal data (scrubbed by anonymization)."""
    return (f"No. {rng.randint(1, 999)} {rng.choice(STREETS)} Road, Building {rng.randint(1, 30)}, "
            f"Room {rng.randint(101, 2899)}, {district} District, {city}")


def make_person(rng: random.Random, index: int) -> dict:
    """A user with identity (PII), home and work, and long-term habits per context."""
    city = rng.choice(list(CITIES))
    d_home, d_work = rng.choice(CITIES[city]), rng.choice(CITIES[city])
    surname, given = rng.choice(SURNAMES), rng.choice(GIVEN)
    genre = rng.choice(list(SONGS))
    return {
        "name": f"{surname} {given}", "phone": "1" + rng.choice("3589") + "".join(rng.choice("0123456789") for _ in range(9)),
        "email": f"{given.lower()}.{surname.lower()}{index}@mail.example.com",
        "id_number": "".join(rng.choice("0123456789") for _ in range(17)) + rng.choice("0123456789X"),
        "device": f"dev-{rng.getrandbits(32):08x}", "city": city, "home_district": d_home, "work_district": d_work,
        "home": exact_address(rng, d_home, city), "work": exact_address(rng, d_work, city),
        "pay": rng.choice(["Alipay", "WeChat Pay", "Credit Card"]),
        "taxi_commute": rng.choice(["Didi", "Gaode", "CaoCao"]), "taxi_evening": rng.choice(["Didi", "T3", "Gaode"]),
        "car_type": rng.choice(["Express", "Premier", "Carpool"]),
        "takeout_weekday": rng.choice(["Eleme", "Meituan"]), "takeout_weekend": rng.choice(["Meituan", "Eleme"]),
        "lunch_spots": rng.sample(RESTAURANTS, 3), "tableware": rng.random() < 0.5,
        "coffee_weekday": rng.choice(["Luckin", "Luckin", "Starbucks"]), "coffee_weekend": rng.choice(["Starbucks", "Luckin"]),
        "drink": rng.choice(DRINKS["coffee"]), "size": rng.choice(["medium", "large"]),
        "sugar": rng.choice(["none", "less"]), "temperature": rng.choice(["hot", "iced"]),
        "shop": {"daily goods": rng.choice(["Pinduoduo", "Pinduoduo", "Taobao"]), "electronics": "JD",
                 "clothing": rng.choice(["Taobao", "JD"]), "books": rng.choice(["JD", "Taobao"]), "beauty": "Taobao"},
        "flight_app": rng.choice(["Ctrip", "Fliggy", "Qunar"]), "seat_class": rng.choice(["economy", "economy", "business"]),
        "airline": rng.choice(["China Eastern", "Air China", "China Southern"]),
        "train_app": rng.choice(["Railway12306", "Tongcheng"]), "train_seat": rng.choice(["second class", "first class"]),
        "hotel_app": rng.choice(["Ctrip", "Huazhu"]), "hotel_brand": rng.choice(["Hanting", "Atour", "Ji Hotel"]),
        "room_type": rng.choice(["single", "double"]), "movie_app": rng.choice(["Maoyan", "Taopiaopiao"]),
        "seat_area": rng.choice(["middle", "back"]), "music_app": rng.choice(["QQMusic", "NeteaseMusic"]), "genre": genre,
        "video_app": rng.choice(["Tencent_Video", "Bilibili"]), "news_app": rng.choice(["Toutiao", "Tencent_News", "Weibo"]),
        "topic": rng.choice(TOPICS), "sport_app": rng.choice(["Keep", "Huawei_Health"]),
        "exercise": rng.choice(["running", "cycling", "yoga", "strength"]), "duration": rng.choice([20, 30, 45, 60]),
        "alarm": rng.choice(["06:30", "07:00", "07:30"]), "trip_cities": rng.sample([c for c in CITIES if c != city], 2),
    }

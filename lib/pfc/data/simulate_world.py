"""The simulated world: cities, places, people and their long-term habits (used by ``pfc.data.simulate``).

Everything is drawn from a ``random.Random`` the caller seeds; nothing here writes files. Personal data (names, phone
numbers, e-mail addresses, ID numbers, exact home and work addresses) is generated on purpose, so that anonymization can
be tested against it.

    >>> import random; p = make_person(random.Random(1), 0, {fn: ["A", "B"] for fn in APP_CONTEXTS}); p["city"] in CITIES
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
TOPICS = ["tech", "finance", "sports", "entertainment", "world", "local"]


def place(name: str, district: str, city: str) -> str:
    """A public place: named, not personal (kept by anonymization)."""
    return f"{name} ({district}, {city})"


def exact_address(rng: random.Random, district: str, city: str) -> str:
    """A residence or office: personal data (scrubbed by anonymization)."""
    return (f"No. {rng.randint(1, 999)} {rng.choice(STREETS)} Road, Building {rng.randint(1, 30)}, "
            f"Room {rng.randint(101, 2899)}, {district} District, {city}")


# (function, contexts): the contexts in which a user may prefer different apps (pfc.data.context)
APP_CONTEXTS = {
    "order_takeout": ("lunch", "dinner"), "search_restaurant": ("lunch", "dinner"),
    "book_restaurant": ("date", "friends"), "order_coffee": ("work", "leisure"),
    "buy_product": ("daily", "gadget", "style"), "call_taxi": ("commute", "evening", "night"),
    "book_flight": ("business", "leisure"), "book_hotel": ("business", "leisure"), "book_train": ("business", "leisure"),
    "search_movie": ("weeknight", "weekend"), "book_movie_ticket": ("weeknight", "weekend"),
    "play_music": ("morning", "night"), "play_video": ("clips", "series"), "search_video": ("clips", "series"),
    "log_exercise": ("outdoor", "indoor"), "get_news": ("morning", "evening"),
}
SHOP_CONTEXT = {"daily goods": "daily", "electronics": "gadget", "clothing": "style", "books": "style", "beauty": "style"}
CLIPS = ["cooking hacks", "cat compilation", "tech review", "street food tour", "speedrun"]
SERIES = ["The Bad Kids", "Blossoms Shanghai", "Three-Body", "Street Dance of China"]
TEAS = ["Cheese Grape", "Jasmine Milk Tea", "Mango Pomelo Sago"]
TOPPINGS = ["boba", "cheese foam", "coconut jelly", "grass jelly"]
DEPARTMENTS = ["dermatology", "dentistry", "orthopedics", "general practice"]
PARKS = ["Century Park", "Riverside Greenway", "Olympic Forest Park", "West Lake Trail"]
NOTES = ["weekend brunch", "hiking routes", "home workout", "skin care", "coffee shops"]
QUESTIONS = ["how to improve sleep", "best budget phone", "how to learn Python", "is intermittent fasting healthy"]
TODOS = ["Pay rent", "Call mom", "Renew passport", "Buy a gift", "Return the parcel"]
EVENTS = ["Dentist", "Team dinner", "Yoga class", "Parents' visit"]
OUTDOOR, INDOOR = ["running", "cycling", "walking"], ["yoga", "strength", "swimming"]


def app_preferences(apps_of: dict, index: int, rng: random.Random) -> dict:
    """{function: {context: app}}: each context its own app where possible, rotated by user index.

    Rotation guarantees that across users every app is some context's preferred app; ``rng`` decides the direction, so
    two users with the same index parity still differ.
    """
    prefs = {}
    for fn, contexts in APP_CONTEXTS.items():
        apps = list(apps_of[fn])
        shift = index + rng.randrange(len(apps))
        prefs[fn] = {c: apps[(shift + k) % len(apps)] for k, c in enumerate(contexts)}
    return prefs


def make_person(rng: random.Random, index: int, apps_of: dict) -> dict:
    """A user with identity (PII), home and work, and long-term habits per context."""
    city = rng.choice(sorted(CITIES))
    d_home, d_work = rng.choice(CITIES[city]), rng.choice(CITIES[city])
    surname, given = rng.choice(SURNAMES), rng.choice(GIVEN)
    genres = rng.sample(sorted(SONGS), 2)
    return {
        "name": f"{surname} {given}", "phone": "1" + rng.choice("3589") + "".join(rng.choice("0123456789") for _ in range(9)),
        "email": f"{given.lower()}.{surname.lower()}{index}@mail.example.com",
        "id_number": "".join(rng.choice("0123456789") for _ in range(17)) + rng.choice("0123456789X"),
        "device": f"dev-{rng.getrandbits(32):08x}", "city": city, "home_district": d_home, "work_district": d_work,
        "home": exact_address(rng, d_home, city), "work": exact_address(rng, d_work, city),
        "apps": app_preferences(apps_of, index, rng),
        "pay": rng.choice(["Alipay", "WeChat Pay", "Credit Card"]),
        "car_type": rng.choice(["Express", "Premier", "Carpool"]), "car_night": rng.choice(["Premier", "Luxe", "Taxi"]),
        "lunch_spots": rng.sample(RESTAURANTS, 3), "tableware": rng.random() < 0.5,
        "spice": rng.choice(["none", "mild", "hot"]), "lunch_cuisine": rng.choice([r[1] for r in RESTAURANTS]),
        "dinner_cuisine": rng.choice([r[1] for r in RESTAURANTS]),
        "drink": rng.choice(DRINKS["coffee"]), "size": rng.choice(["medium", "large"]),
        "sugar": rng.choice(["none", "less"]), "temperature": rng.choice(["hot", "iced"]),
        "tea": rng.choice(TEAS), "toppings": rng.sample(TOPPINGS, 1),
        "fav_mall": rng.choice(MALLS), "seat_class": rng.choice(["economy", "business"]),
        "airline": rng.choice(["China Eastern", "Air China", "China Southern"]),
        "train_seat": rng.choice(["second class", "first class"]),
        "hotel_brand": rng.choice(["Hanting", "Atour", "Ji Hotel"]), "room_type": rng.choice(["single", "double"]),
        "seat_area": rng.choice(["middle", "back"]), "screen": rng.choice(["2D", "IMAX"]),
        "genre_morning": genres[0], "genre_night": genres[1], "shuffle": rng.random() < 0.5,
        "series": rng.choice(SERIES), "quality": rng.choice(["1080p", "720p"]),
        "topic": rng.choice(TOPICS), "topic_evening": rng.choice(TOPICS),
        "outdoor": rng.choice(OUTDOOR), "indoor": rng.choice(INDOOR), "outdoor_share": rng.choice([0.65, 0.75]),
        "duration": rng.choice([20, 30, 45, 60]), "intensity": rng.choice(["medium", "high"]),
        "alarm": rng.choice(["06:30", "07:00", "07:30"]), "remind": rng.choice([15, 30, 60]),
        "priority": rng.choice(["normal", "high"]), "department": rng.choice(DEPARTMENTS),
        "note_topic": rng.choice(NOTES), "park": rng.choice(PARKS), "bike": rng.choice(["standard", "e-bike"]),
        "trip_cities": rng.sample([c for c in sorted(CITIES) if c != city], 2),
    }

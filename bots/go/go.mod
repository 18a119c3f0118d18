module random_bot

go 1.19

"""Writes the seeded binary files of cases/dumate (run once: python3 make_seeds.py).

Needs python3 with openpyxl (Debian: python3-openpyxl). The files are committed; this
script only documents how they were made. Zip entries and workbook properties carry fixed
dates, so the bytes come out the same on every run of the same openpyxl version.
"""
import datetime
import os
import zipfile
from xml.sax.saxutils import escape

import openpyxl

HERE = os.path.dirname(os.path.abspath(__file__))
FIXED = datetime.datetime(2026, 4, 1, 9, 0, 0)


def orders_workbook(path):
    wb = openpyxl.Workbook()
    wb.properties.creator = "Shop system export"
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    ws = wb.active
    ws.title = "Orders"
    ws.append(["order_id", "date", "product", "units", "unit_price", "status"])
    rows = [
        ("O-3001", (2026, 1, 6), "Standing desk", 2, 489.00, "shipped"),
        ("O-3002", (2026, 1, 14), "Desk lamp", 10, 34.50, "shipped"),
        ("O-3003", (2026, 1, 22), "Office chair", 4, 259.00, "shipped"),
        ("O-3004", (2026, 2, 3), "Monitor arm", 6, 79.90, "shipped"),
        ("O-3005", (2026, 2, 10), "Standing desk", 1, 489.00, "cancelled"),
        ("O-3006", (2026, 2, 18), "Desk lamp", 8, 34.50, "shipped"),
        ("O-3007", (2026, 2, 27), "Office chair", 2, 259.00, "cancelled"),
        ("O-3008", (2026, 3, 4), "Monitor arm", 3, 79.90, "shipped"),
        ("O-3009", (2026, 3, 11), "Standing desk", 3, 469.00, "shipped"),
        ("O-3010", (2026, 3, 19), "Office chair", 1, 259.00, "shipped"),
        ("O-3011", (2026, 3, 26), "Desk lamp", 12, 32.00, "shipped"),
    ]
    for order_id, day, product, units, price, status in rows:
        ws.append([order_id, datetime.date(*day), product, units, price, status])
        ws.cell(row=ws.max_row, column=2).number_format = "yyyy-mm-dd"
        ws.cell(row=ws.max_row, column=5).number_format = "0.00"
    notes = wb.create_sheet("Notes")
    notes.append(["Orders of January to March 2026, exported from the shop system."])
    notes.append(["status is shipped or cancelled; a cancelled order was never delivered or paid and is not revenue."])
    notes.append(["unit_price is in EUR and is the price the order was placed at (prices change during the quarter)."])
    wb.save(path)


CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"""
RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"""
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def paragraph(text, style=None):
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f'<w:p>{props}<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def table(rows):
    cells = lambda row: "".join(f"<w:tc>{paragraph(c)}</w:tc>" for c in row)
    return "<w:tbl>" + "".join(f"<w:tr>{cells(r)}</w:tr>" for r in rows) + "</w:tbl>"


def docx(path, body):
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
           f'<w:document xmlns:w="{W}"><w:body>{body}<w:sectPr/></w:body></w:document>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in [("[Content_Types].xml", CONTENT_TYPES), ("_rels/.rels", RELS),
                           ("word/document.xml", xml)]:
            z.writestr(zipfile.ZipInfo(name, FIXED.timetuple()[:6]), data, zipfile.ZIP_DEFLATED)


def travel_policy(path):
    docx(path, "".join([
        paragraph("Travel expense policy 2026", "Title"),
        paragraph("Approved by the management board on 12 March 2026. This policy applies to every business trip that starts on or after 1 April 2026."),
        paragraph("1. Daily allowance (per diem)", "Heading1"),
        paragraph("Travellers receive a daily allowance for each calendar day of a trip, the day of departure and the day of return included. The table gives the daily rate in EUR by destination city; the 2025 column is shown for comparison only and no longer applies."),
        table([["City", "2025 rate (EUR)", "2026 rate (EUR)"],
               ["Berlin", "58", "62"],
               ["London", "71", "76"],
               ["Madrid", "55", "57"],
               ["Paris", "64", "69"]]),
        paragraph("For a destination that the table does not list, the daily rate is 45 EUR."),
        paragraph("2. Claims", "Heading1"),
        paragraph("Allowances are paid with the next salary. Claims must reach Finance within 30 days of the end of the trip."),
    ]))


def minutes(path):
    docx(path, "".join([
        paragraph("Northwind Cooperative: minutes of the board meeting of 24 March 2026", "Title"),
        paragraph("Present: Ines Alvarez (chair), Jonas Berg, Mei Tanaka, Omar Haddad. Minutes: Clara Novak."),
        paragraph("1. Annual accounts", "Heading1"),
        paragraph("Resolution 2026-07: the board approves the annual accounts for 2025 and submits them to the general assembly of 14 May 2026."),
        paragraph("2. Warehouse lease", "Heading1"),
        paragraph("Resolution 2026-08: the board authorises the chair to renew the warehouse lease in Kolding for five years at no more than 18,500 EUR per month."),
        paragraph("3. Membership fee", "Heading1"),
        paragraph("Resolution 2026-09: the membership fee stays at 120 EUR for 2027. Mei Tanaka voted against."),
        paragraph("The next meeting is on 28 April 2026. Signed off by the chair on 31 March 2026."),
    ]))


if __name__ == "__main__":
    orders_workbook(os.path.join(HERE, "orders_2026_q1.xlsx"))
    travel_policy(os.path.join(HERE, "travel_policy_2026.docx"))
    minutes(os.path.join(HERE, "minutes_2026-03.docx"))
